import Foundation
import Testing

@testable import ARSimScene

/// A fade-out in progress, as Apple's object-tracking sample declares it: seconds to fade over and seconds done.
private struct Fading: RealityKit.Component {
  var duration: Float
  var progress: Float = 0
  var finished = false
}

/// Lowers the opacity of fading entities linearly over their duration on the scene's clock, as the
/// sample's `FadeOutSystem` does, and marks them finished at the end.
private struct FadeOut: RealityKit.System {
  static let query = EntityQuery(where: .has(Fading.self))
  init(scene: RealityKit.Scene) {}
  func update(context: SceneUpdateContext) {
    for entity in context.entities(matching: Self.query, updatingSystemWhen: .rendering) {
      guard var fading = entity.components[Fading.self], !fading.finished else { continue }
      fading.progress += Float(context.deltaTime)
      entity.components.set(OpacityComponent(opacity: max(0, 1 - fading.progress / fading.duration)))
      fading.finished = fading.progress >= fading.duration
      entity.components.set(fading)
    }
  }
}

@Suite struct OpacityComponentTests {
  @Test func opacityDefaultsToOpaqueAndKeepsWhatIsSet() {
    #expect(OpacityComponent().opacity == 1)
    let entity = ModelEntity(mesh: .generateBox(size: 0.1))
    #expect(entity.components[OpacityComponent.self] == nil, "no opacity component until one is set")
    entity.components.set(OpacityComponent(opacity: 0.5))
    #expect(entity.components[OpacityComponent.self]?.opacity == 0.5)
    entity.components[OpacityComponent.self]?.opacity = 0.25
    #expect(entity.components[OpacityComponent.self] == OpacityComponent(opacity: 0.25))
    let copy = entity.clone(recursive: true)
    #expect(copy.components[OpacityComponent.self]?.opacity == 0.25, "a clone keeps the opacity")
    entity.components.remove(OpacityComponent.self)
    #expect(!entity.components.has(OpacityComponent.self))
  }

  @Test func aSystemFadesAnEntityOutOnTheRecordingClock() {
    FadeOut.registerSystem()
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let anchor = AnchorEntity(world: .zero)
    let target = ModelEntity(mesh: .generateSphere(radius: 0.05))
    target.components.set(Fading(duration: 1))
    anchor.addChild(target)
    view.scene.addAnchor(anchor)

    var seen: [Float] = []
    for _ in 0..<5 {
      view.scene.advance(by: 0.25)
      seen.append(target.components[OpacityComponent.self]?.opacity ?? -1)
    }
    // Four quarter seconds fade it to nothing; the fifth update finds it finished and leaves it.
    #expect(zip(seen, [0.75, 0.5, 0.25, 0, 0] as [Float]).allSatisfy { abs($0 - $1) < 1e-6 }, "\(seen)")
    #expect(target.components[Fading.self]?.finished == true)
  }
}
