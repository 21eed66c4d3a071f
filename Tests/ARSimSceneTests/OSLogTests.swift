import Foundation
import Testing

@testable import os

@Suite struct OSLogTests {
  @Test func interpolatedMessagesRedactWhatApplesLogRedacts() {
    let name = "kitchen table"
    let count = 3
    let message: OSLogMessage =
      "found \(count) planes on \(name) and \(name, privacy: .public), \(0.5) m, \(count, privacy: .private)"
    #expect(message.text == "found 3 planes on <private> and kitchen table, 0.5 m, <private>")
    let log = OSLog(subsystem: "com.example.app", category: "placement")
    #expect(log.line("ready", type: .error) == "[com.example.app:placement] error: ready")
    #expect(OSLog.default.line("ready", type: .info) == "info: ready")
    #expect(!OSLog.disabled.isEnabled(type: .fault) && log.isEnabled(type: .error))
  }

  @Test func printfMessagesFormatTheirArguments() {
    #expect(formatLogMessage("curve distance is too low", []) == "curve distance is too low")
    #expect(formatLogMessage("%d planes, %.2f m", [3, 2.25]) == "3 planes, 2.25 m")
    #expect(
      formatLogMessage("%{public}@ has %{private}d, 100%%", ["table", 7]) == "table has <private>, 100%")
    // The calls compile as Apple's do and write to standard error.
    os_log(.error, "curve distance is too low, minimum value is %d", 1)
    os_log("placed %{public}@", log: OSLog(subsystem: "test", category: "os"), type: .info, "cup")
    Logger(subsystem: "test", category: "os").notice("placed \(2) cups")
  }
}
