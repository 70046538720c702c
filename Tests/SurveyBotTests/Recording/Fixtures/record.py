# Records a walk through survey-bot's reference server in headless Chromium (Playwright), as a
# HAR file with every body embedded: the recordings Tests/SurveyBotTests/Recording imports.
#
#   survey-bot serve --port 18080 --api pages --questions 7 &      # the pages walk
#   python3 record.py pages http://127.0.0.1:18080 pages-walk1.har --answers red,green,blue
#   survey-bot serve --port 18081 --login --questions 3 &          # the login walk
#   python3 record.py login http://127.0.0.1:18081 login-walk.har
#   survey-bot serve --port 18083 --api jsonrpc --questions 4 &     # LimeSurvey's RemoteControl shape
#   python3 record.py jsonrpc http://127.0.0.1:18083 jsonrpc-walk1.har
#   survey-bot serve --port 18084 --api pages --survey typed &      # the typed survey, page by page
#   python3 record.py typed-pages http://127.0.0.1:18084 typed-walk.har
#   survey-bot serve --port 18085 --api one_post --survey typed &   # the typed survey in one post
#   python3 record.py typed-one-post http://127.0.0.1:18085 typed-one-post-walk.har
#   survey-bot serve --port 18082 --api html --survey typed &      # the HTML walk
#   python3 record.py html http://127.0.0.1:18082 html-walk1.har --answers "q1=c1;q3=8;q5=it is warm"
#
# pages, login, jsonrpc and the typed walks: the browser opens the server's /__stats (the
# reference server has no HTML page for them), then, as the page's script, calls the API with
# fetch() as a single-page survey app would, pausing between calls as a reader does. html: the browser opens /survey and walks
# its pages as a person does — a radio button or checkboxes clicked, a number or a text typed a
# key at a time, a pause, the button pressed — until the "thank you" page. Loopback only.
# .ci/check-walks records these walks live in CI.
import argparse
import random
import time
from playwright.sync_api import sync_playwright

def pages_script(answer):
    """The JSON pages walk, as the page's script: a session opened, each page's questions
    answered in turn from the walk's answers by `answer` (a JS function of the question and the
    next answer), the session ended."""
    return """async ({answers}) => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const answer = """ + answer + """;
  const json = {'Content-Type': 'application/json'};
  await sleep(400);
  let r = await fetch('/sessions', {method: 'POST', headers: json, body: JSON.stringify({language: 'EN'})});
  let page = await r.json();
  const id = page.session;
  let n = 0;
  while (!page.done && page.questions.length > 0) {
    await sleep(600);
    const given = {};
    for (const q of page.questions) given[q.id] = answer(q, answers[n++ % answers.length]);
    r = await fetch('/sessions/' + id, {method: 'POST', headers: json, body: JSON.stringify({answers: given})});
    if (!r.ok) throw new Error('page refused: ' + await r.text());
    page = await r.json();
  }
  await sleep(300);
  await fetch('/sessions/' + id, {method: 'DELETE'});
  return n;
}"""


PAGES = pages_script("(q, a) => a")

LOGIN = """async ({answers}) => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  await sleep(400);
  let r = await fetch('/session', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({member: 1})});
  const token = (await r.json()).token;
  const auth = {'Authorization': 'Bearer ' + token};
  const questions = await (await fetch('/questions', {headers: auth})).json();
  let n = 0;
  for (const q of questions) {
    await sleep(500);
    await fetch('/question/submit', {method: 'POST', headers: {...auth, 'Content-Type': 'application/json'},
                                     body: JSON.stringify({id: q.id, answer: answers[n++ % answers.length]})});
  }
  await sleep(300);
  await fetch('/session', {method: 'DELETE', headers: auth});
  return n;
}"""

# LimeSurvey's RemoteControl as its clients call it: every call a POST of {method, params, id} to
# the one endpoint, the session key from get_session_key the first of each later call's params,
# the answers keyed SIDXGIDXQID, and a failure a {"status": …} result inside a 200. The user and
# password are the reference server's dummies: it checks only that both are given.
JSONRPC = """async ({answers}) => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  let id = 0;
  const call = async (method, params) => {
    const r = await fetch('/rpc', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                   body: JSON.stringify({method: method, params: params, id: ++id})});
    const reply = await r.json();
    if (reply.error !== null || (reply.result !== null && reply.result.status !== undefined))
      throw new Error(method + ': ' + JSON.stringify(reply));
    return reply.result;
  };
  await sleep(400);
  const key = await call('get_session_key', ['admin', 'dummy-Passw0rd']);
  await sleep(300);
  const questions = await call('list_questions', [key, 900001]);
  const response = {};
  let n = 0;
  for (const q of questions) response[q.sid + 'X' + q.gid + 'X' + q.qid] = answers[n++ % answers.length];
  await sleep(800);
  await call('add_response', [key, 900001, response]);
  await sleep(300);
  await call('release_session_key', [key]);
  return n;
}"""

# The typed survey's answer to question q as its type asks (`serve --survey typed`): the first
# choice (which shows q5 after q1), the first two of a multiple choice, a number within bounds
# drawn from the text answer of the walk, and that text.
TYPED_ANSWER = """(q, text) => {
  let k = 0;
  for (const c of text) k += c.charCodeAt(0);
  switch (q.type) {
    case 'single': return q.choices[0].id;
    case 'multiple': return q.choices.slice(0, 2).map(c => c.id);
    case 'number': return q.min + k % (q.max - q.min + 1);
    default: return text;
  }
}"""

TYPED_PAGES = pages_script(TYPED_ANSWER)

# The whole survey read, then every page's answers in one post, a question shown on a condition
# answered only when its condition holds.
TYPED_ONE_POST = """async ({answers}) => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const answer = """ + TYPED_ANSWER + """;
  await sleep(400);
  const survey = (await (await fetch('/survey')).json()).survey;
  const given = {};
  const pages = [];
  let n = 0;
  for (const page of survey.pages) {
    const questions = [];
    for (const q of page.questions) {
      if (q.shown_if && given[q.shown_if.question] !== q.shown_if.choice) continue;
      given[q.id] = answer(q, answers[n++ % answers.length]);
      questions.push({id: q.id, answer: given[q.id]});
    }
    pages.push({id: page.id, questions: questions});
  }
  await sleep(1200);
  const r = await fetch('/responses', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                       body: JSON.stringify({pages: pages})});
  if (!r.ok) throw new Error('response refused: ' + await r.text());
  return n;
}"""

WALKS = {"pages": PAGES, "login": LOGIN, "jsonrpc": JSONRPC, "typed-pages": TYPED_PAGES, "typed-one-post": TYPED_ONE_POST}

# The html walk's answers by default (html-walk1.har's): red (q1 = c1), so that page 2 asks q5
# too. One checkbox per question: two send the field twice, a body the importer keeps as text.
HTML_ANSWERS = "q1=c1;q2=c2;q3=8;q5=it is warm;q6=c1;q7=c5;q8=3;q4=nothing more"


def html_walk(page, base, answers, pause):
    """Walks the html survey's pages as a person does: answers each question shown that `answers`
    names (radio buttons and checkboxes clicked, numbers and texts typed), leaves the others empty,
    presses the page's button, until the page with no form. Returns the questions answered."""
    given = {}
    for item in filter(None, (part.strip() for part in answers.split(";"))):
        question, _, value = item.partition("=")
        given[question.strip()] = value
    page.goto(base + "/survey")
    answered = 0
    while page.locator("form").count() > 0:
        for block in page.locator("div.question").all():
            question = block.get_attribute("id").removeprefix("question-")
            if question not in given:
                continue
            pause()
            kind = block.get_attribute("data-type")
            if kind in ("single", "multiple"):
                for choice in given[question].split(","):
                    page.click(f"#{question}-{choice.strip()}")
                    pause(0.3)
            else:
                field = page.locator(f"#{question}")
                field.click()
                field.press_sequentially(given[question], delay=random.randint(60, 140))
            answered += 1
        pause()
        with page.expect_navigation():
            page.click("button[name=move]")
    return answered


parser = argparse.ArgumentParser()
parser.add_argument("walk", choices=sorted(WALKS) + ["html"])
parser.add_argument("base", help="the server's URL on loopback, http://127.0.0.1:PORT")
parser.add_argument("out")
parser.add_argument(
    "--answers",
    help="pages, login: values separated by commas (red,green,blue by default); html: QUESTION=VALUE separated by "
    "semicolons, a multiple choice's values by commas (" + HTML_ANSWERS + " by default)")
arguments = parser.parse_args()
assert arguments.base.startswith(("http://127.0.0.1:", "http://localhost:", "http://[::1]:")), "loopback only"

with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
    # The browser's version is four dotted numbers, which reads as an IPv4 address to a check
    # that every address in the tests is a loopback one: the walks name it by its major alone.
    agent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156 Safari/537.36"
    context = browser.new_context(record_har_path=arguments.out, record_har_content="embed", user_agent=agent)
    page = context.new_page()
    page.set_default_timeout(30_000)
    if arguments.walk == "html":
        # A reader's pauses: 0.6–1.5 s before each question and the button, shorter between clicks.
        def pause(seconds=None):
            time.sleep(seconds if seconds is not None else random.uniform(0.6, 1.5))

        answered = html_walk(page, arguments.base, arguments.answers or HTML_ANSWERS, pause)
    else:
        page.goto(arguments.base + "/__stats")
        answers = (arguments.answers or "red,green,blue").split(",")
        answered = page.evaluate(WALKS[arguments.walk], {"answers": answers})
    print("answered", answered, "questions")
    context.close()
    browser.close()
