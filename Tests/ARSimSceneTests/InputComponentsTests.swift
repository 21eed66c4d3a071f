import ARSimScene
import Foundation
import Testing

@Suite struct InputComponentsTests {
  @Test func inputTargetsAndHoverEffectsKeepWhatTheAppSets() throws {
    let sphere = ModelEntity(mesh: .generateSphere(radius: 0.1))
    sphere.components.set(InputTargetComponent())
    sphere.components.set(HoverEffectComponent())
    let target = try #require(sphere.components[InputTargetComponent.self])
    #expect(
      target.allowedInputTypes == .all && target.allowedInputTypes.contains(.indirect) && target.isEnabled)
    var direct = InputTargetComponent(allowedInputTypes: .direct)
    direct.isEnabled = false
    sphere.components.set(direct)
    #expect(sphere.components[InputTargetComponent.self] == direct)
    #expect(!(sphere.components[InputTargetComponent.self]?.allowedInputTypes.contains(.indirect) ?? true))

    let hover = try #require(sphere.components[HoverEffectComponent.self])
    #expect(hover.hoverEffect.spotlightStyle == .default && hover.hoverEffect.highlightStyle == nil)
    let tinted = HoverEffectComponent(.highlight(.init(color: .red, strength: 0.5)))
    #expect(tinted.hoverEffect.highlightStyle?.color == .red && tinted.hoverEffect.spotlightStyle == nil)
  }

  @Test func clearcoatIsAPhysicallyBasedParameter() throws {
    var material = PhysicallyBasedMaterial()
    #expect(material.clearcoat.scale == 0 && material.clearcoatRoughness.scale == 0)
    material.clearcoat = 1.0
    material.clearcoatRoughness = 0.1
    #expect(material.clearcoat.scale == 1 && material.clearcoatRoughness.scale == 0.1)
  }

  @Test func viewsAreKeysByIdentity() {
    let (a, b) = (ARView(frame: .zero), ARView(frame: .zero))
    var gestures: [ARView: Int] = [a: 1]
    gestures[b, default: 0] += 2
    gestures[a, default: 0] += 1
    #expect(gestures[a] == 2 && gestures[b] == 2 && gestures.count == 2)
    #expect(a == a && a != b && Set([a, a, b]).count == 2)
  }
}
