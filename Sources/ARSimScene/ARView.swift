import ARSim
import Foundation

/// A headless RealityKit `ARView`: a view of `frame.size` points showing the session's camera image
/// (aspect fill, as ``Viewport`` describes) with a ``Scene`` of entities over it, and nothing drawn.
///
/// The view is its session's delegate: it keeps the scene's anchoring entities on their targets (see
/// ``AnchorEntity``) and then forwards every callback, unchanged and in order, to ``sessionDelegate``.
/// Apps set ``sessionDelegate`` where an iOS app would set `arView.session.delegate`; replacing
/// `session.delegate` instead disconnects the scene from the session (entities then no longer follow
/// their anchors). The scene is up to date when the app's delegate hears a callback.
///
/// The view runs nothing by itself (as RealityKit's with `automaticallyConfigureSession` off): the app
/// runs ``session`` with its configuration, and an ``ARReplay`` of the session feeds it frames.
///
/// Not thread-safe: use the view, its scene and entities on the thread that steps the replay (where the
/// callbacks arrive unless the session has a `delegateQueue`, which is then the place).
open class ARView: ARSessionDelegate {
  /// Whether the view shows the camera (RealityKit's `ARView.CameraMode`).
  public enum CameraMode: Sendable, Hashable {
    /// The camera image, with tracking: raycasts work.
    case ar
    /// A virtual camera without tracking: raycasts find nothing.
    case nonAR
  }

  /// The view's frame in its superview's coordinates, points. Only its size matters to ARSim.
  public var frame: CGRect
  /// The view's own rectangle: origin zero, the frame's size, points.
  public var bounds: CGRect { CGRect(origin: .zero, size: frame.size) }
  /// The centre of the frame in its superview's coordinates (UIKit's `center`); for a view at the
  /// origin of its superview, the middle of ``bounds``.
  public var center: CGPoint { CGPoint(x: frame.midX, y: frame.midY) }
  /// How the view shows the world. Default `.ar`.
  public var cameraMode: CameraMode
  /// The interface orientation the view is presented in (UIKit would give it; here the app sets it).
  /// Default `.portrait`.
  public var interfaceOrientation: UIInterfaceOrientation = .portrait
  /// The session whose frames the view shows.
  public let session: ARSession
  /// The entities over the camera image.
  public let scene: Scene
  /// Receives every session callback after the view has updated the scene (ARSim's addition; see the
  /// type's notes). Held weakly.
  public weak var sessionDelegate: (any ARSessionDelegate)?

  /// A view of `frame` (points) with a new session, in `cameraMode`.
  public init(frame: CGRect, cameraMode: CameraMode = .ar) {
    self.frame = frame
    self.cameraMode = cameraMode
    session = ARSession()
    scene = Scene()
    scene.view = self
    session.delegate = self
  }

  /// A view of `frame` (points) with a new session, showing the camera.
  public convenience init(frame: CGRect) {
    self.init(frame: frame, cameraMode: .ar)
  }

  /// The mapping between the view's points and the captured image: the view's size and
  /// ``interfaceOrientation``.
  public var viewport: Viewport { Viewport(size: frame.size, orientation: interfaceOrientation) }

  // MARK: Raycasting

  /// The query for a ray from the camera through the view point `point` (points, origin at the view's
  /// top-left corner), mapped onto the captured image through ``viewport`` (rotation for the interface
  /// orientation and aspect fill), as RealityKit's `makeRaycastQuery(from:allowing:alignment:)`.
  /// Nil without a frame yet, in `.nonAR` mode, or when the point is not finite or its image point lies
  /// outside the captured image. A point outside the view's bounds but on the image (a cropped part)
  /// still gives a query.
  public func makeRaycastQuery(
    from point: CGPoint, allowing target: ARRaycastQuery.Target, alignment: ARRaycastQuery.TargetAlignment
  ) -> ARRaycastQuery? {
    guard cameraMode == .ar, let frame = session.currentFrame, point.x.isFinite, point.y.isFinite else {
      return nil
    }
    let image = viewport.normalizedImagePoint(
      fromViewPoint: point, imageResolution: frame.camera.imageResolution)
    guard (0...1).contains(image.x), (0...1).contains(image.y) else { return nil }
    return frame.raycastQuery(from: image, allowing: target, alignment: alignment)
  }

  /// The hits of a ray from the camera through the view point `point` (points, origin at the view's
  /// top-left), nearest first, as RealityKit's `raycast(from:allowing:alignment:)`; empty when
  /// ``makeRaycastQuery(from:allowing:alignment:)`` gives no query or nothing is hit.
  public func raycast(
    from point: CGPoint, allowing target: ARRaycastQuery.Target, alignment: ARRaycastQuery.TargetAlignment
  ) -> [ARRaycastResult] {
    guard let query = makeRaycastQuery(from: point, allowing: target, alignment: alignment) else { return [] }
    return session.raycast(query)
  }

  /// A raycast through the view point `point` that the session re-evaluates after every frame (the ray
  /// stays where it was cast in the world), calling `updateHandler` when the results change, as
  /// RealityKit's `trackedRaycast(from:allowing:alignment:updateHandler:)`. Nil when there is no query.
  public func trackedRaycast(
    from point: CGPoint, allowing target: ARRaycastQuery.Target, alignment: ARRaycastQuery.TargetAlignment,
    updateHandler: @escaping ([ARRaycastResult]) -> Void
  ) -> ARTrackedRaycast? {
    guard let query = makeRaycastQuery(from: point, allowing: target, alignment: alignment) else {
      return nil
    }
    return session.trackedRaycast(query, updateHandler: updateHandler)
  }

  /// Where the world point `point` (metres) appears in the view, points from its top-left corner, as
  /// RealityKit's `project(_:)`; nil without a frame, in `.nonAR` mode, or for a point not in front of
  /// the camera. The result may lie outside the bounds.
  public func project(_ point: SIMD3<Float>) -> CGPoint? {
    guard cameraMode == .ar, let camera = session.currentFrame?.camera else { return nil }
    let inCamera = camera.transform.inverse * SIMD4(point, 1)
    guard inCamera.z < 0 else { return nil }
    return camera.projectPoint(point, orientation: interfaceOrientation, viewportSize: frame.size)
  }

  /// The world point (metres) where the camera ray through the view point `point` meets the plane
  /// through `planeTransform`'s origin with normal its y axis, as RealityKit's
  /// `unproject(_:ontoPlane:)`; nil without a frame, in `.nonAR` mode, or when the ray misses.
  public func unproject(_ point: CGPoint, ontoPlane planeTransform: simd_float4x4) -> SIMD3<Float>? {
    guard cameraMode == .ar, let camera = session.currentFrame?.camera else { return nil }
    return camera.unprojectPoint(
      point, ontoPlane: planeTransform, orientation: interfaceOrientation, viewportSize: frame.size)
  }

  // MARK: Anchoring

  /// Looks for the targets of `entity` and the anchoring entities under it among the session's
  /// anchors (when added to the scene or retargeted).
  func resolve(_ entity: Entity) {
    guard entity.scene === scene else { return }
    let anchors = session.anchors
    var pending: [any HasAnchoring] = []
    func visit(_ node: Entity) {
      if let anchoring = node as? any HasAnchoring { pending.append(anchoring) }
      for child in node.children { visit(child) }
    }
    visit(entity)
    for anchoring in pending { resolve(anchoring, among: anchors) }
  }

  /// Fastens `entity` to the first of `anchors` its target matches, unless it already follows one
  /// (in which case it moves to that anchor's pose when present).
  private func resolve(_ entity: any HasAnchoring, among anchors: [ARAnchor]) {
    let state = entity.anchoringState
    let target = entity.anchoring.target
    if case .world = target { return }
    if state.isAttached, let identifier = state.anchorIdentifier {
      if let anchor = anchors.first(where: { $0.identifier == identifier }) { follow(entity, anchor) }
      return
    }
    guard let anchor = anchors.first(where: { target.matches($0) }) else { return }
    entity.anchoringState.isAttached = true
    entity.anchoringState.anchorIdentifier = anchor.identifier
    entity.anchoringState.anchorFromEntity = .identity
    follow(entity, anchor)
  }

  private func follow(_ entity: any HasAnchoring, _ anchor: ARAnchor) {
    entity.setTransformMatrix(anchor.transform * entity.anchoringState.anchorFromEntity, relativeTo: nil)
  }

  /// Takes the entities that follow the removed anchors out of the scene, or over to the absorbing
  /// plane (see ``AnchorEntity``).
  private func anchorsRemoved(_ removed: [ARAnchor]) {
    let ids = Set(removed.map(\.identifier))
    let current = session.anchors
    for entity in scene.anchoringEntities {
      let state = entity.anchoringState
      guard let identifier = state.anchorIdentifier, ids.contains(identifier) else { continue }
      if case .plane = entity.anchoring.target, state.isAttached,
        let gone = removed.first(where: { $0.identifier == identifier }),
        let absorberID = session.absorbingAnchorIdentifier(of: gone),
        let absorber = current.first(where: { $0.identifier == absorberID }),
        entity.anchoring.target.matches(absorber)
      {
        entity.anchoringState.anchorIdentifier = absorberID
        entity.anchoringState.anchorFromEntity =
          absorber.transform.inverse * entity.transformMatrix(relativeTo: nil)
        continue
      }
      entity.removeFromParent()
    }
  }

  // MARK: ARSessionDelegate

  /// Forwards the frame to ``sessionDelegate``.
  open func session(_ session: ARSession, didUpdate frame: ARFrame) {
    sessionDelegate?.session(session, didUpdate: frame)
  }

  /// Fastens waiting anchoring entities to the new anchors, then forwards.
  open func session(_ session: ARSession, didAdd anchors: [ARAnchor]) {
    for entity in scene.anchoringEntities { resolve(entity, among: anchors) }
    sessionDelegate?.session(session, didAdd: anchors)
  }

  /// Moves the entities that follow the updated anchors (and fastens waiting ones that now match),
  /// then forwards.
  open func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) {
    for entity in scene.anchoringEntities { resolve(entity, among: anchors) }
    sessionDelegate?.session(session, didUpdate: anchors)
  }

  /// Removes the entities that follow the removed anchors from the scene, then forwards.
  open func session(_ session: ARSession, didRemove anchors: [ARAnchor]) {
    anchorsRemoved(anchors)
    sessionDelegate?.session(session, didRemove: anchors)
  }

  /// Forwards.
  open func session(_ session: ARSession, cameraDidChangeTrackingState camera: ARCamera) {
    sessionDelegate?.session(session, cameraDidChangeTrackingState: camera)
  }

  /// Forwards.
  open func sessionWasInterrupted(_ session: ARSession) {
    sessionDelegate?.sessionWasInterrupted(session)
  }

  /// Forwards.
  open func sessionInterruptionEnded(_ session: ARSession) {
    sessionDelegate?.sessionInterruptionEnded(session)
  }

  /// Forwards.
  open func session(_ session: ARSession, didFailWithError error: any Error) {
    sessionDelegate?.session(session, didFailWithError: error)
  }
}
