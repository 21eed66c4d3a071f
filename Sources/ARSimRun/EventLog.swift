import ARSim
import Foundation

/// The session delegate behind `--events`: one JSON object per callback, in order (the CLI
/// contract in ARCHITECTURE.md).
public final class EventLog: ARSessionDelegate {
  private let file: OutputFile
  private var failure: (any Error)?

  /// Opens `path` for the events of the session this log becomes the delegate of.
  public init(path: String) throws {
    file = try OutputFile(path: path)
  }

  /// Moves the file into place, or throws the first write error.
  public func close() throws {
    if let failure { throw failure }
    try file.close()
  }

  private func write(_ session: ARSession, _ event: String, _ members: [(String, JSON)]) {
    guard failure == nil else { return }
    let frame = session.currentFrame
    let head: [(String, JSON)] = [
      ("t", frame.map { .number($0.timestamp) } ?? .null),
      ("frame", frame.map { .int($0.frameIndex) } ?? .null),
      ("event", .string(event)),
    ]
    do {
      try file.write(JSON.object(head + members).text)
    } catch {
      failure = error
    }
  }

  private func describe(_ anchors: [ARAnchor], session: ARSession, removed: Bool) -> JSON {
    .array(
      anchors.map { anchor in
        var members: [(String, JSON)] = [("id", .string(anchor.identifier.uuidString))]
        if let plane = anchor as? ARPlaneAnchor {
          members += [
            ("alignment", .string("\(plane.alignment)")),
            ("classification", .string("\(plane.classification)")),
            ("transform", JSON.matrix(plane.transform)), ("center", JSON.vector(plane.center)),
            (
              "extent",
              .object([
                ("width", .float(plane.planeExtent.width)), ("height", .float(plane.planeExtent.height)),
                ("rotationOnYAxis", .float(plane.planeExtent.rotationOnYAxis)),
              ])
            ),
            ("boundary", .array(plane.geometry.boundaryVertices.map(JSON.vector))),
          ]
        } else {
          let name: JSON = anchor.name.map { .string($0) } ?? .null
          members += [("name", name), ("transform", JSON.matrix(anchor.transform))]
        }
        if removed, let absorber = session.absorbingAnchorIdentifier(of: anchor) {
          members.append(("absorbedBy", .string(absorber.uuidString)))
        }
        return .object(members)
      })
  }

  public func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
    write(session, "didAdd", [("anchors", describe(anchors, session: session, removed: false))])
  }

  public func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) {
    write(session, "didUpdate", [("anchors", describe(anchors, session: session, removed: false))])
  }

  public func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {
    write(session, "didRemove", [("anchors", describe(anchors, session: session, removed: true))])
  }

  public func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera) {
    write(session, "trackingState", [("state", .string("\(camera.trackingState)"))])
  }

  public func sessionWasInterrupted(_ session: ARSession) { write(session, "interrupted", []) }

  public func sessionInterruptionEnded(_ session: ARSession) { write(session, "interruptionEnded", []) }

  /// Yes: the replay relocalises after a gap in the recording (nothing is written).
  public func sessionShouldAttemptRelocalization(_ session: ARSession) -> Bool { true }

  public func session(_ session: ARSession, didFailWithError error: any Error) {
    write(session, "didFail", [("error", .string("\(error)"))])
  }
}
