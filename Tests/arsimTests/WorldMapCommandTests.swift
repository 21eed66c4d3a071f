import ARSimTestSupport
import Foundation
import Testing

/// `arsim replay --frames --save-map --load-map` on the tabletop split in two sessions (issue 16).
@Suite struct WorldMapCommandTests {
  @Test(.enabled(if: Datasets.exists("tabletop"))) func savesAMapAndRelocalizesTheSecondSession() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("arsim-map-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let map = folder.appendingPathComponent("tabletop.map").path
    let first = try CLI.run(["replay", Datasets.path("tabletop"), "--frames", "0-99", "--save-map", map])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains("frames: 100 over 6.600 s"))
    #expect(first.stdout.contains(#/map saved: .*tabletop\.map \(\d+ keyframes, \d+ points, 2 anchors\)/#))
    let second = try CLI.run(["replay", Datasets.path("tabletop"), "--frames", "60-", "--load-map", map])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stdout.contains("states: limited:relocalizing"))
    #expect(
      second.stdout.contains(
        #/map: relocalized at frame 6\d \(\d frames, 0\.\d\d s after the first\), 2 anchors restored/#))
    // The restored planes are continued, not detected again.
    #expect(second.stdout.contains("planes: 2 ("), "\(second.stdout)")

    var damaged = try Data(contentsOf: URL(fileURLWithPath: map))
    damaged.removeLast()
    try damaged.write(to: URL(fileURLWithPath: map))
    let bad = try CLI.run(["replay", Datasets.path("tabletop"), "--frames", "0-1", "--load-map", map])
    #expect(bad.status != 0)
    #expect(bad.stderr.hasPrefix("arsim replay: \(map): byte "), "\(bad.stderr)")
    #expect(bad.stderr.split(separator: "\n").count == 1)
    let range = try CLI.run(["replay", Datasets.path("tabletop"), "--frames", "9-3"])
    #expect(range.status == 2 && range.stderr.contains("--frames must be FIRST-LAST"))
  }
}
