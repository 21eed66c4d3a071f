import ARSim
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

/// `planes.json` and `taps.txt` are validated: a damaged file is an error naming the key or line,
/// never a silently different score (issue 11).
@Suite struct GroundTruthFilesTests {
  /// The tabletop dataset's planes.json with `edit` applied to its object, written to a file.
  func planesFile(_ edit: (inout [String: Any]) -> Void) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: Datasets.path("tabletop/planes.json")))
    var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    edit(&object)
    let path = RecordingFixtures.temporaryFolder() + "-planes.json"
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    return path
  }

  func problem(_ edit: @escaping (inout [String: Any]) -> Void) throws -> String? {
    let path = try planesFile(edit)
    do {
      _ = try GroundTruthPlanesFile.load(path: path)
      return nil
    } catch {
      #expect(error.file == path)
      return error.key.isEmpty ? error.message : "\(error.key): \(error.message)"
    }
  }

  func editPlane(_ i: Int, _ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
    { object in
      var planes = object["planes"] as! [[String: Any]]
      planes[i][key] = value
      object["planes"] = planes
    }
  }

  @Test func theShippedFileIsValid() throws {
    #expect(try problem { _ in } == nil)
  }

  @Test func damagedPlanesAreNamed() throws {
    #expect(try problem { $0["version"] = 2 } == "version: 2 is not supported (this build reads 1)")
    #expect(
      try problem { $0["format"] = "arsim-scene" } == "format: is 'arsim-scene', expected 'arsim-planes'")
    #expect(
      try problem(editPlane(1, "normal", [0, 0, 0]))
        == "planes[1].normal: must be a unit vector, got length 0.0")
    #expect(
      try problem(editPlane(0, "normal", [1e308, 1, 0]))
        == "planes[0].normal: must be three finite numbers of magnitude at most 1000000.0")
    #expect(
      try problem(editPlane(0, "polygon", [[0, 0, 0], [1, 0, 0]]))
        == "planes[0].polygon: needs at least 3 vertices, got 2")
    #expect(
      try problem(editPlane(1, "area", -0.5))
        == "planes[1].area: must be a positive number (square metres), got -0.5")
    #expect(try problem(editPlane(1, "id", 1)) == "planes[1].id: 1 is used twice")
    #expect(try problem { $0["gravity"] = [0, -2, 0] } == "gravity: must be a unit vector, got length 2.0")
  }

  @Test func trailingCommasAreRefused() throws {
    let path = RecordingFixtures.temporaryFolder() + "-planes.json"
    try #"{"format": "arsim-planes", "version": 1, "gravity": [0, -1, 0], "planes": [],}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    #expect(throws: SceneError.self) { try GroundTruthPlanesFile.load(path: path) }
  }

  @Test func tapsAreReadInOrderWithFiniteValues() throws {
    let path = RecordingFixtures.temporaryFolder() + "-taps.txt"
    func taps(_ lines: String) throws -> String? {
      try (GroundTruthTap.header + "\n" + lines).write(toFile: path, atomically: true, encoding: .utf8)
      do {
        _ = try GroundTruthTap.load(path: path)
        return nil
      } catch {
        return error.description
      }
    }
    #expect(try taps("0.5 10 20 3 0 0 1 1\n1.0 10 20 6 0 0 1 1\n") == nil)
    #expect(
      try taps("1.0 10 20 6 0 0 1 1\n0.5 10 20 3 0 0 1 1\n")
        == "\(path):3: tap at 0.5 s (frame 3) comes before the previous one at 1.0 s (frame 6)")
    #expect(try taps("0.5 10 20 3 nan 0 1 1\n") == "\(path):2: wx 'nan' is not a finite number")
    #expect(
      try taps("0.5 10 20 -1 0 0 1 1\n") == "\(path):2: frame '-1' is not a frame index (an integer from 0)")
    #expect(try GroundTruthTap.load(path: Datasets.path("tabletop/taps.txt")).count > 10)
  }
}
