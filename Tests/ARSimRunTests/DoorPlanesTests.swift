import ARSim
import ARSimEval
import ARSimTestSupport
import Testing

@testable import ARSimRun

/// The phone-profile door session (Datasets/door): a 0.9 × 2.05 m door 3 cm proud of its wall, seen
/// from about 2 m through 256 × 192 depth whose noise grows with the square of the range.
@Suite struct DoorPlanesTests {
  @Test(.enabled(if: Datasets.exists("door")))
  func theDoorIsOneDoorAnchorAndTheWallAnother() throws {
    let evaluation = try RecordingEvaluator.evaluate(
      Datasets.path("door"), options: ReplayOptions(), target: .existingPlaneGeometry, alignment: .any)
    let planes = try #require(evaluation.planes)
    #expect(planes.precision == 1)
    let door = try #require(planes.references.first { $0.label == "door" })
    let wall = try #require(planes.references.first { $0.label == "wall" })
    let doorAnchor = try #require(door.matches.first)
    let wallAnchor = try #require(wall.matches.first)
    #expect(doorAnchor != wallAnchor, "the door and the wall are one anchor")
    #expect(door.classification == "door")
    #expect(wall.classification == "wall")
    // One anchor covers the door: any other match is the wall's hull around it.
    #expect(door.matches.filter { $0 != wallAnchor }.count == 1)
    for (name, result) in [("door", door), ("wall", wall)] {
      #expect(try #require(result.angleDegrees) <= 0.3, "\(name) normal")
      #expect(try #require(result.offsetError) <= 0.005, "\(name) offset")
    }
    let raycasts = try #require(evaluation.raycasts)
    #expect(try #require(raycasts.worldError).median <= 0.005)
    #expect(try #require(raycasts.worldErrorP90) <= 0.015)
  }
}
