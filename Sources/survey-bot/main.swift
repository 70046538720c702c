import SurveyBot

// The doorway: hand the arguments to SurveyBot and exit with the status it returns.
let status = await SurveyBotCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
exitProcess(status)
