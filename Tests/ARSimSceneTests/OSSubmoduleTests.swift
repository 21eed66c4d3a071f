import Foundation
import OSLog
import Testing
import os.log
import os.signpost

@testable import os

/// `import os.log`, `import os.signpost` and `import OSLog` compile and bring Apple's logging API.
@Suite struct OSSubmoduleTests {
  @Test func theSubmodulesBringTheLoggingAPI() {
    let log = OSLog(subsystem: "com.example.bugs", category: "Options")
    os_log(.error, log: log, "spawned %d bugs", 3)
    #expect(
      log.line(formatLogMessage("spawned %d bugs", [3]), type: .error)
        == "[com.example.bugs:Options] error: spawned 3 bugs")
    Logger(log).debug("not written unless OS_ACTIVITY_MODE=debug")
  }

  @Test func signpostIdentifiersAreDistinctAndApples() {
    let log = OSLog(subsystem: "test", category: "signposts")
    let (a, b) = (OSSignpostID(log: log), OSSignpostID(log: log))
    #expect(a != b && a.rawValue != 0 && a != .exclusive)
    #expect(OSSignpostID.exclusive.rawValue == 0xEEEE_B0B5_B2B2_EEEE && OSSignpostID.null.rawValue == 0)
    #expect(OSSignpostID.invalid.rawValue == UInt64.max)
    let object = NSObject()
    #expect(OSSignpostID(log: log, object: object) == OSSignpostID(log: log, object: object))
    #expect(OSSignpostID(log: log, object: object) != OSSignpostID(log: log, object: NSObject()))
    let signposter = OSSignposter(logHandle: log)
    #expect(signposter.makeSignpostID() != signposter.makeSignpostID())
    #expect(!OSSignposter.disabled.isEnabled)
  }

  @Test func signpostsAreDebugLinesOfTheirLog() throws {
    let log = OSLog(subsystem: "test", category: "signposts")
    #expect(
      log.signpostText(.begin, name: "Load", id: OSSignpostID(7), message: "assets=3")
        == "signpost begin Load id 7: assets=3")
    #expect(log.signpostText(.event, name: "Tap", id: .null, message: nil) == "signpost event Tap id 0")
    os_signpost(.begin, log: log, name: "Load", signpostID: OSSignpostID(7), "assets=%d", 3)
    os_signpost(.end, log: log, name: "Load", signpostID: OSSignpostID(7))

    let signposter = OSSignposter(logger: Logger(subsystem: "test", category: "signposts"))
    let id = signposter.makeSignpostID()
    let state = signposter.beginInterval("Load", id: id, "count=\(3)")
    #expect(state.signpostID == id && OSSignpostIntervalState.beginState(id: id).signpostID == id)
    signposter.endInterval("Load", state)
    #expect(signposter.withIntervalSignpost("Sum") { 2 + 3 } == 5)
    struct Failure: Error {}
    #expect(throws: Failure.self) {
      try signposter.withIntervalSignpost("Fail") { () throws -> Int in throw Failure() }
    }
  }
}
