import Foundation

/// Runs the built `arsim` executable, which sits beside the test bundle (the package builds it
/// with the tests).
public enum CLI {
  public struct Result {
    public var status: Int32
    public var stdout: String
    public var stderr: String
  }

  public static var executable: URL {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return here.appendingPathComponent("arsim")
  }

  /// Runs `arsim` with `arguments`, and `environment` added to the test's own.
  public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes to the end before waiting, so a full pipe cannot block the child.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }
}
