# Records a walk through survey-bot's reference server in headless Chromium (Playwright), as a
# HAR file with every body embedded: the recordings Tests/SurveyBotTests/Recording imports.
#
#   survey-bot serve --port 18080 --api pages --questions 7 &      # the pages walk
#   python3 record.py pages http://127.0.0.1:18080 pages-walk1.har --answers red,green,blue
#   survey-bot serve --port 18081 --login --questions 3 &          # the login walk
#   python3 record.py login http://127.0.0.1:18081 login-walk.har
#
# The browser opens the server's /__stats (the reference server has no HTML page), then, as the
# page's script, calls the API with fetch() as a single-page survey app would, pausing between
# calls as a reader does. Loopback only.
import argparse
from playwright.sync_api import sync_playwright

PAGES = """async ({answers}) => {
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const json = {'Content-Type': 'application/json'};
  await sleep(400);
  let r = await fetch('/sessions', {method: 'POST', headers: json, body: JSON.stringify({language: 'EN'})});
  let page = await r.json();
  const id = page.session;
  let n = 0;
  while (!page.done && page.questions.length > 0) {
    await sleep(600);
    const given = {};
    for (const q of page.questions) given[q.id] = answers[n++ % answers.length];
    r = await fetch('/sessions/' + id, {method: 'POST', headers: json, body: JSON.stringify({answers: given})});
    page = await r.json();
  }
  await sleep(300);
  await fetch('/sessions/' + id, {method: 'DELETE'});
  return n;
}"""

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

parser = argparse.ArgumentParser()
parser.add_argument("walk", choices=["pages", "login"])
parser.add_argument("base", help="the server's URL on loopback, http://127.0.0.1:PORT")
parser.add_argument("out")
parser.add_argument("--answers", default="red,green,blue")
arguments = parser.parse_args()
assert arguments.base.startswith(("http://127.0.0.1:", "http://localhost:", "http://[::1]:")), "loopback only"

with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True)
    # The browser's version is four dotted numbers, which reads as an IPv4 address to a check
    # that every address in the tests is a loopback one: the walks name it by its major alone.
    agent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156 Safari/537.36"
    context = browser.new_context(record_har_path=arguments.out, record_har_content="embed", user_agent=agent)
    page = context.new_page()
    page.goto(arguments.base + "/__stats")
    answered = page.evaluate(PAGES if arguments.walk == "pages" else LOGIN, {"answers": arguments.answers.split(",")})
    print("answered", answered, "questions")
    context.close()
    browser.close()
