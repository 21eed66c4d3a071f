import ARSimScene
import ARSimTestSupport
import Foundation
import Testing

/// A box model of `size` metres with a matching collision shape and a body of `mode`.
private func box(
  _ name: String, size: SIMD3<Float>, at position: SIMD3<Float>, mode: PhysicsBodyMode, mass: Float = 1,
  material: PhysicsMaterialResource? = nil
) -> ModelEntity {
  let shape = ShapeResource.generateBox(size: size)
  let entity = ModelEntity(
    mesh: .generateBox(size: size), materials: [SimpleMaterial()], collisionShapes: [shape])
  entity.name = name
  entity.position = position
  entity.physicsBody = PhysicsBodyComponent(shapes: [shape], mass: mass, material: material, mode: mode)
  return entity
}

/// A sphere model of `radius` metres with a matching collision shape and a dynamic body.
private func ball(_ name: String, radius: Float, at position: SIMD3<Float>, mass: Float = 1) -> ModelEntity {
  let shape = ShapeResource.generateSphere(radius: radius)
  let entity = ModelEntity(mesh: .generateSphere(radius: radius), collisionShapes: [shape])
  entity.name = name
  entity.position = position
  entity.physicsBody = PhysicsBodyComponent(
    shapes: [shape], mass: mass, material: .generate(friction: 0, restitution: 1), mode: .dynamic)
  entity.physicsBody?.isAffectedByGravity = false
  return entity
}

/// A view replaying the tabletop recording, and the recording time of its current frame.
private struct Replay {
  let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
  let replay: ARReplay

  init() throws {
    replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
  }

  var time: TimeInterval { view.session.currentFrame?.timestamp ?? 0 }

  /// Steps frames until `seconds` of recording time have passed since the first frame, calling `each`
  /// after every frame.
  func run(until seconds: TimeInterval, _ each: () -> Void = {}) throws {
    while time < seconds || view.session.currentFrame == nil {
      guard try replay.step() != nil else { return }
      each()
    }
  }
}

@Suite struct PhysicsTests {
  @Test func aDroppedBoxFallsUnderGravityAndComesToRestOnAStaticBox() throws {
    let run = try Replay()
    let world = AnchorEntity(world: .zero)
    let still = PhysicsMaterialResource.generate(friction: 0.8, restitution: 0)
    let table = box("table", size: SIMD3(0.6, 0.1, 0.6), at: SIMD3(0, -1, -1), mode: .static, material: still)
    let cube = box(
      "cube", size: SIMD3(repeating: 0.1), at: SIMD3(0.05, -0.4, -1), mode: .dynamic, material: still)
    world.addChild(table)
    world.addChild(cube)
    run.view.scene.addAnchor(world)
    var began: [(Entity, Entity)] = []
    var updates = 0
    var ended = 0
    let subscriptions = [
      run.view.scene.subscribe(to: CollisionEvents.Began.self, on: cube) {
        began.append(($0.entityA, $0.entityB))
      },
      run.view.scene.subscribe(to: CollisionEvents.Updated.self, on: table) { _ in updates += 1 },
      run.view.scene.subscribe(to: CollisionEvents.Ended.self) { _ in ended += 1 },
    ]
    // Free fall first: y = y0 − g t² / 2 until the cube meets the table (0.45 m below: about 0.3 s).
    try run.run(until: 0.25)
    let t = Float(run.time)
    #expect(abs(cube.position.y - (-0.4 - 9.80665 * t * t / 2)) < 0.01, "free fall after \(t) s")
    #expect(began.isEmpty)
    try run.run(until: 4)
    // At rest on the table: its bottom on the table's top (−0.95 m), within 1 cm, and still.
    #expect(abs((cube.position.y - 0.05) - (-0.95)) < 0.01, "resting at \(cube.position.y)")
    #expect(abs(cube.position.x - 0.05) < 0.01 && abs(cube.position.z + 1) < 0.01, "fell straight down")
    let speed = simd_length(cube.physicsMotion?.linearVelocity ?? SIMD3(repeating: 1))
    #expect(speed < 0.01, "still: \(speed) m/s")
    #expect(table.position == SIMD3(0, -1, -1), "a static body never moves")
    #expect(began.count == 1 && began.first.map { Set([$0.0, $0.1]) } == Set([cube, table]))
    #expect(updates > 10 && ended == 0)
    // Lifting the cube off the table ends the contact.
    cube.physicsBody?.mode = .kinematic
    cube.position.y += 0.5
    try run.run(until: 4.2)
    #expect(ended == 1)
    withExtendedLifetime(subscriptions) {}
  }

  @Test func aBoxDroppedOnADetectedTableComesToRestOnIt() throws {
    let run = try Replay()
    run.view.environment.sceneUnderstanding.options = [.physics, .occlusion]
    var realWorldHits: [SceneUnderstandingComponent.EntityType?] = []
    let token = run.view.scene.subscribe(to: CollisionEvents.Began.self) { event in
      for case let real as any HasSceneUnderstanding in [event.entityA, event.entityB] {
        realWorldHits.append(real.sceneUnderstanding.entityType)
      }
    }
    var found: ARPlaneAnchor?
    try run.run(until: 10) {
      if found == nil,
        let candidate = run.view.session.currentFrame?.anchors.compactMap({ $0 as? ARPlaneAnchor }).first(
          where: {
            $0.alignment == .horizontal && $0.planeExtent.width > 0.3 && $0.planeExtent.height > 0.3
          })
      {
        found = candidate
      }
      if found != nil && run.view.scene.anchors.isEmpty, let found {
        let centre4 = found.transform * SIMD4(found.center, 1)
        let centre = SIMD3(centre4.x, centre4.y, centre4.z)
        let holder = AnchorEntity(world: .zero)
        holder.addChild(
          box("parcel", size: SIMD3(repeating: 0.1), at: centre + SIMD3(0, 0.3, 0), mode: .dynamic))
        run.view.scene.addAnchor(holder)
      }
    }
    let table = try #require(found)
    let parcel = try #require(run.view.scene.findEntity(named: "parcel") as? ModelEntity)
    let height = table.transform.columns.3.y
    let bottom = parcel.position(relativeTo: nil).y - 0.05
    #expect(abs(bottom - height) < 0.01, "the parcel's bottom at \(bottom) m, the table at \(height) m")
    #expect(simd_length(parcel.physicsMotion?.linearVelocity ?? SIMD3(repeating: 1)) < 0.01)
    #expect(
      !realWorldHits.isEmpty && realWorldHits.allSatisfy { $0 == .meshChunk }, "the plane is real world")
    _ = token
  }

  /// A collision component declared static (RealityKit's `init(shapes:isStatic:filter:)`, no physics
  /// body) is a fixed floor: a dropped box comes to rest on it and it does not move.
  @Test func aBoxComesToRestOnAStaticCollisionShape() throws {
    let run = try Replay()
    let world = AnchorEntity(world: .zero)
    let floor = Entity()
    floor.position = SIMD3(0, -1, -1)
    let slab = CollisionComponent(shapes: [.generateBox(size: SIMD3(1, 0.1, 1))], isStatic: true)
    #expect(slab.isStatic && slab.mode == .default)
    floor.components.set(slab)
    let cube = box("cube", size: SIMD3(repeating: 0.1), at: SIMD3(0, -0.5, -1), mode: .dynamic)
    world.addChild(floor)
    world.addChild(cube)
    run.view.scene.addAnchor(world)
    try run.run(until: 3)
    #expect(abs((cube.position.y - 0.05) - (-0.95)) < 0.01, "resting at \(cube.position.y)")
    #expect(floor.position == SIMD3(0, -1, -1))
  }

  @Test func kinematicBodiesMoveByTheirVelocityAndImpulsesAndForcesAct() throws {
    let run = try Replay()
    let world = AnchorEntity(world: .zero)
    let slider = box("slider", size: SIMD3(repeating: 0.1), at: SIMD3(0, 2, 0), mode: .kinematic)
    slider.physicsMotion = PhysicsMotionComponent(linearVelocity: SIMD3(0.5, 0, 0))
    let kicked = ball("kicked", radius: 0.05, at: SIMD3(0, 5, 0), mass: 2)
    let pushed = ball("pushed", radius: 0.05, at: SIMD3(0, 8, 0), mass: 1)
    for entity in [slider, kicked, pushed] { world.addChild(entity) }
    run.view.scene.addAnchor(world)
    try run.run(until: 0.01)
    let start = run.time
    let startX = slider.position.x
    kicked.applyLinearImpulse(SIMD3(0, 0, -3), relativeTo: nil)
    #expect(kicked.physicsMotion?.linearVelocity == SIMD3(0, 0, -1.5), "3 N·s on 2 kg")
    try run.run(until: start + 2) { pushed.addForce(SIMD3(0.5, 0, 0), relativeTo: nil) }
    let elapsed = Float(run.time - start)
    let slid = slider.position.x - startX
    #expect(abs(slid - 0.5 * elapsed) < 0.01, "kinematic: \(slid) m in \(elapsed) s")
    #expect(slider.position.y == 2, "kinematic bodies ignore gravity")
    #expect(abs(kicked.position.z + 1.5 * elapsed) < 0.01)
    // 0.5 N on 1 kg from the first frame after `start`: v = 0.5 t (the last frame's force not yet applied).
    let velocity = pushed.physicsMotion?.linearVelocity.x ?? 0
    #expect(abs(velocity - 0.5 * elapsed) < 0.05, "pushed: \(velocity) m/s after \(elapsed) s")
  }

  @Test func equalSpheresExchangeTheirVelocitiesInAnElasticCollision() throws {
    let run = try Replay()
    let world = AnchorEntity(world: .zero)
    let moving = ball("moving", radius: 0.05, at: SIMD3(-0.5, 1, 0))
    let resting = ball("resting", radius: 0.05, at: SIMD3(0, 1, 0))
    moving.physicsMotion = PhysicsMotionComponent(linearVelocity: SIMD3(1, 0, 0))
    world.addChild(moving)
    world.addChild(resting)
    run.view.scene.addAnchor(world)
    var impulse: Float = 0
    let token = run.view.scene.subscribe(to: CollisionEvents.Began.self) { impulse = $0.impulse }
    try run.run(until: 1.5)
    let a = moving.physicsMotion?.linearVelocity ?? .zero
    let b = resting.physicsMotion?.linearVelocity ?? .zero
    #expect(abs(a.x) < 0.02 && abs(b.x - 1) < 0.02, "after: \(a.x) and \(b.x) m/s")
    #expect(abs(a.x + b.x - 1) < 1e-3, "momentum kept")
    #expect(abs(impulse - 1) < 0.05, "1 kg·m/s exchanged (\(impulse))")
    _ = token
  }
}
