import Foundation

/// The process's environment variables, read once.
enum ProcessEnvironment {
    static var current: [String: String] { ProcessInfo.processInfo.environment }
}
