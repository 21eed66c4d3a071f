import ARSim
import Foundation

/// A headless RealityKit `ARView`: a view of `frame.size` points showing the session's camera image
/// (aspect fill, as ``Viewport`` describes) with a ``Scene`` of entities over it, and nothing drawn.
///
/// The view observes its session without being its delegate, so the app may set
/// `arView.session.delegate` freely: the view hears each callback first, keeps the scene's anchoring
/// entities on their targets (see ``AnchorEntity``), and then the session calls its delegate, so the
/// scene is up to date when the app hears a callback. After each frame (`didUpdate frame`) the view
/// advances its entities' animations by the recording time since the previous frame and sends
/// ``SceneEvents/Update``.
///
/// With ``automaticallyConfigureSession`` (the default, as in RealityKit), a view in `.ar` mode whose
/// session has never been run runs it, on the first recorded frame, with world tracking and horizontal
/// and vertical plane detection; an app that runs the session itself before that frame keeps its own
/// configuration. An ``ARReplay`` of the session feeds it frames.
///
/// Not thread-safe: use the view, its scene and entities on the thread that steps the replay (where the
/// callbacks arrive unless the session has a `delegateQueue`, which is then the place).
open class ARView {
  /// Whether the view shows the camera (RealityKit's `ARView.CameraMode`).
  public enum CameraMode: Sendable, Hashable {
    /// The camera image, with tracking: raycasts work.
    case ar
    /// A virtual camera without tracking: raycasts find nothing; hit tests look through the scene's
    /// first active ``PerspectiveCamera``.
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
  /// Whether the view runs its session by itself on the first frame (see the type's notes). Default
  /// true; set it to false before the first frame to run the session yourself.
  public var automaticallyConfigureSession: Bool
  /// The interface orientation the view is presented in (UIKit would give it; here the app sets it).
  /// Default `.portrait`.
  public var interfaceOrientation: UIInterfaceOrientation = .portrait
  /// The session whose frames the view shows.
  public let session: ARSession
  /// The entities over the camera image.
  public let scene: Scene
  /// What is drawn behind the entities (accepted; ARSim draws nothing).
  public var environment = Environment()
  /// Debug drawings to show (accepted; the view has no screen to draw on). `arsim render
  /// --debug-options` draws the same ones over a recording's frames: `.showAnchorOrigins` is
  /// `anchorOrigins`, `.showAnchorGeometry` `anchorGeometry`, `.showFeaturePoints` `featurePoints`,
  /// `.showWorldOrigin` `worldOrigin` (RealityKit's names are accepted too).
  public var debugOptions: DebugOptions = []
  /// The gesture recognizers ``installGestures(_:for:)`` installed, in order.
  public internal(set) var gestureRecognizers: [EntityGestureRecognizer] = []
  /// The link through which the session reports to the view (held here; the session holds it weakly).
  private var link: SessionLink!
  /// The recorded time of the previous frame, for animation steps.
  private var lastFrameTime: TimeInterval?

  /// A view of `frameRect` (points) with a new session, showing the camera (`.ar`) and configuring the
  /// session itself, as RealityKit's `init(frame:)`. Subclasses override it as in RealityKit:
  /// `required init(frame frameRect: CGRect) { super.init(frame: frameRect) ... }`.
  public required init(frame frameRect: CGRect) {
    frame = frameRect
    cameraMode = .ar
    automaticallyConfigureSession = true
    session = ARSession()
    scene = Scene()
    connect()
  }

  /// A view made from an interface file, as UIKit's `init?(coder:)`: ARSim has no interface files, so
  /// the view has a zero frame and otherwise the defaults of ``init(frame:)``. Never nil.
  public required init?(coder decoder: NSCoder) {
    frame = .zero
    cameraMode = .ar
    automaticallyConfigureSession = true
    session = ARSession()
    scene = Scene()
    connect()
  }

  /// Ties the scene and the session to the view (once, from the designated initialisers).
  private func connect() {
    scene.view = self
    link = SessionLink(view: self)
    session.addObserver(link)
  }

  /// A view of `frameRect` (points) with a new session, in `cameraMode`, configuring the session itself
  /// unless `automaticallyConfigureSession` is false, as RealityKit's
  /// `init(frame:cameraMode:automaticallyConfigureSession:)`.
  public convenience init(
    frame frameRect: CGRect, cameraMode: CameraMode, automaticallyConfigureSession: Bool
  ) {
    self.init(frame: frameRect)
    self.cameraMode = cameraMode
    self.automaticallyConfigureSession = automaticallyConfigureSession
  }

  /// A view of `frameRect` (points) in `cameraMode`, configuring its session itself.
  public convenience init(frame frameRect: CGRect, cameraMode: CameraMode) {
    self.init(frame: frameRect, cameraMode: cameraMode, automaticallyConfigureSession: true)
  }

  /// The pose of the viewpoint in world space (metres), as RealityKit's `cameraTransform`: in `.ar`
  /// mode the current frame's camera (`ARCamera.transform`: ARKit's camera frame, looking along its
  /// −z); in `.nonAR` mode the scene's first active ``PerspectiveCamera``. The identity before the first
  /// frame or without a virtual camera.
  public var cameraTransform: Transform {
    switch cameraMode {
    case .ar:
      return session.currentFrame.map { Transform(matrix: $0.camera.transform) } ?? .identity
    case .nonAR:
      return activeVirtualCamera().map { Transform(matrix: $0.transformMatrix(relativeTo: nil)) } ?? .identity
    }
  }

  /// The app's delegate of the view's session: the same as `session.delegate` (kept for code written
  /// when ARSim's view was its session's delegate). Held weakly.
  public var sessionDelegate: (any ARSessionDelegate)? {
    get { session.delegate }
    set { session.delegate = newValue }
  }

  /// What the view shows behind its entities (RealityKit's `ARView.Environment`).
  public struct Environment: Sendable {
    /// The backdrop (RealityKit's `ARView.Environment.Background`).
    public struct Background: Sendable, Hashable {
      enum Kind: Sendable, Hashable {
        case cameraFeed(exposureCompensation: Float)
        case color(MaterialColor)
      }
      let kind: Kind
      /// The camera image (the `.ar` default).
      public static func cameraFeed(exposureCompensation: Float = 0) -> Background {
        Background(kind: .cameraFeed(exposureCompensation: exposureCompensation))
      }
      /// A plain colour.
      public static func color(_ color: MaterialColor) -> Background { Background(kind: .color(color)) }
      /// The colour of a `.color` background, nil for the camera feed.
      public var color: MaterialColor? {
        if case .color(let color) = kind { return color }
        return nil
      }
    }
    /// The backdrop. Default the camera feed.
    public var background = Background.cameraFeed()
    /// How the real world takes part in the scene. Default: no options.
    public var sceneUnderstanding = SceneUnderstanding()

    /// How the real world takes part in the scene (RealityKit's `ARView.Environment.SceneUnderstanding`).
    public struct SceneUnderstanding: Sendable, Hashable {
      /// The ways the real world takes part (RealityKit's `SceneUnderstanding.Options`).
      public struct Options: OptionSet, Sendable, Hashable {
        /// One bit per option.
        public let rawValue: Int
        /// The set of these bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Real surfaces hide virtual content behind them (accepted; nothing is drawn).
        public static let occlusion = Options(rawValue: 1 << 0)
        /// Real surfaces receive virtual shadows and light (accepted; nothing is drawn).
        public static let receivesLighting = Options(rawValue: 1 << 1)
        /// Physics bodies collide with the reconstructed mesh (its triangles, with scene reconstruction),
        /// or else with the detected planes (each a slab under the plane's extent).
        public static let physics = Options(rawValue: 1 << 2)
        /// The mesh, or the detected planes, are collision surfaces (for ARSim's physics, as ``physics``).
        public static let collision = Options(rawValue: 1 << 3)
        /// RealityKit's default: nothing.
        public static let `default`: Options = []
      }
      /// The options. Default none.
      public var options: Options = .default
      /// No options.
      public init() {}
    }
  }

  /// Rendering features to turn off (RealityKit's `ARView.RenderOptions`): state the app sets and reads;
  /// ARSim renders nothing.
  public struct RenderOptions: OptionSet, Sendable, Hashable {
    /// One bit per option.
    public let rawValue: Int
    /// The set of these bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// No motion blur.
    public static let disableMotionBlur = RenderOptions(rawValue: 1 << 0)
    /// No depth of field.
    public static let disableDepthOfField = RenderOptions(rawValue: 1 << 1)
    /// No camera grain.
    public static let disableCameraGrain = RenderOptions(rawValue: 1 << 2)
    /// No high dynamic range.
    public static let disableHDR = RenderOptions(rawValue: 1 << 3)
    /// No face mesh occlusion.
    public static let disableFaceMesh = RenderOptions(rawValue: 1 << 4)
    /// No grounding shadows.
    public static let disableGroundingShadows = RenderOptions(rawValue: 1 << 5)
    /// No people occlusion.
    public static let disablePersonOcclusion = RenderOptions(rawValue: 1 << 6)
    /// No lighting from the camera image.
    public static let disableAREnvironmentLighting = RenderOptions(rawValue: 1 << 7)
    /// No anti-aliasing.
    public static let disableAntialiasing = RenderOptions(rawValue: 1 << 8)
  }

  /// Rendering features turned off. Default none.
  public var renderOptions: RenderOptions = []

  /// The detected planes physics bodies collide with: the current frame's plane anchors when
  /// ``Environment/SceneUnderstanding/Options/physics`` or `.collision` is on, none otherwise.
  var physicsPlanes: [ARPlaneAnchor] {
    let options = environment.sceneUnderstanding.options
    guard !options.isDisjoint(with: [.physics, .collision]), let frame = session.currentFrame else {
      return []
    }
    return frame.anchors.compactMap { $0 as? ARPlaneAnchor }
  }

  /// Debug drawings (RealityKit's `ARView.DebugOptions`).
  public struct DebugOptions: OptionSet, Sendable, Hashable {
    /// One bit per drawing.
    public let rawValue: Int
    /// The set with these bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Collision shapes and physics.
    public static let showPhysics = DebugOptions(rawValue: 1 << 0)
    /// Rendering statistics.
    public static let showStatistics = DebugOptions(rawValue: 1 << 1)
    /// Each anchor's origin and axes.
    public static let showAnchorOrigins = DebugOptions(rawValue: 1 << 2)
    /// Each anchor's geometry (plane extents).
    public static let showAnchorGeometry = DebugOptions(rawValue: 1 << 3)
    /// The world origin's axes.
    public static let showWorldOrigin = DebugOptions(rawValue: 1 << 4)
    /// The tracked feature points.
    public static let showFeaturePoints = DebugOptions(rawValue: 1 << 5)
    /// The reconstructed scene mesh.
    public static let showSceneUnderstanding = DebugOptions(rawValue: 1 << 6)
    /// Nothing.
    public static let none: DebugOptions = []
  }

  /// Runs the session with RealityKit's automatic configuration when the first frame arrives.
  fileprivate func frameArriving() {
    guard automaticallyConfigureSession, cameraMode == .ar, session.configuration == nil else { return }
    let configuration = ARWorldTrackingConfiguration()
    configuration.planeDetection = [.horizontal, .vertical]
    session.run(configuration)
  }

  /// Advances animations by the recording time since the previous frame and sends the scene's update.
  fileprivate func frameDelivered(_ frame: ARFrame) {
    let delta = lastFrameTime.map { Swift.max(0, frame.timestamp - $0) } ?? 0
    lastFrameTime = frame.timestamp
    let before = anchoredStates()
    for entity in scene.anchoringEntities { followCamera(entity, frame.camera) }
    publishAnchoringChanges(since: before)
    scene.advance(by: delta)
  }

  /// Moves a camera-anchored entity to `camera`'s pose (nothing for other targets).
  private func followCamera(_ entity: any HasAnchoring, _ camera: ARCamera) {
    guard case .camera = entity.anchoring.target else { return }
    entity.anchoringState.isAttached = true
    entity.setTransformMatrix(camera.transform, relativeTo: nil)
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
    let camera = cameraMode == .ar ? session.currentFrame?.camera : nil
    for anchoring in pending {
      if let camera { followCamera(anchoring, camera) }
      resolve(anchoring, among: anchors)
    }
  }

  /// Fastens `entity` to the first of `anchors` its target matches, unless it already follows one
  /// (in which case it moves to that anchor's pose when present).
  private func resolve(_ entity: any HasAnchoring, among anchors: [ARAnchor]) {
    let state = entity.anchoringState
    let target = entity.anchoring.target
    switch target {
    case .world, .camera: return
    case .anchor, .plane: break
    }
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

  // MARK: Session callbacks

  /// Fastens waiting anchoring entities to the anchors and moves the ones that follow them.
  func anchorsChanged(_ anchors: [ARAnchor]) {
    let before = anchoredStates()
    for entity in scene.anchoringEntities { resolve(entity, among: anchors) }
    publishAnchoringChanges(since: before)
  }

  /// Removes the entities that follow removed anchors (or moves them to the absorbing plane).
  func anchorsRemovedNotifying(_ anchors: [ARAnchor]) {
    let before = anchoredStates()
    anchorsRemoved(anchors)
    publishAnchoringChanges(since: before)
  }

  private func anchoredStates() -> [(any HasAnchoring, Bool)] {
    scene.anchoringEntities.map { ($0, $0.isAnchored) }
  }

  private func publishAnchoringChanges(since before: [(any HasAnchoring, Bool)]) {
    for (entity, was) in before where entity.isAnchored != was {
      scene.publish(SceneEvents.AnchoredStateChanged(anchor: entity, isAnchored: !was), from: entity)
    }
  }
}

/// The view's observer of its session: forwards to the view, which it does not keep alive.
private final class SessionLink: ARSessionFrameObserver {
  weak var view: ARView?

  init(view: ARView) {
    self.view = view
  }

  func sessionWillProcessFrame(_ session: ARSession) { view?.frameArriving() }
  func session(_ session: ARSession, didUpdate frame: ARFrame) { view?.frameDelivered(frame) }
  func session(_ session: ARSession, didAdd anchors: [ARAnchor]) { view?.anchorsChanged(anchors) }
  func session(_ session: ARSession, didUpdate anchors: [ARAnchor]) { view?.anchorsChanged(anchors) }
  func session(_ session: ARSession, didRemove anchors: [ARAnchor]) { view?.anchorsRemovedNotifying(anchors) }
}
