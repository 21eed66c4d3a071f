import Foundation
import Testing

@testable import ARSimScene

@Suite struct AnimationDefinitionTests {
  /// Plays `resource` on `entity` and returns its translation after each of `steps` seconds.
  private func play(_ resource: AnimationResource, on entity: Entity, steps: [TimeInterval]) -> [SIMD3<Float>]
  {
    entity.playAnimation(resource)
    return steps.map { step in
      _ = entity.advancePlaybacks(by: step)
      return entity.position
    }
  }

  @Test func fromToMovesTheTransformWithItsTiming() throws {
    let definition = FromToByAnimation<Transform>(
      name: "slide", from: Transform(translation: [0, 0, 0]), to: Transform(translation: [2, 0, 0]),
      duration: 2, bindTarget: .transform)
    let resource = try AnimationResource.generate(with: definition)
    #expect(resource.duration == 2 && resource.name == "slide" && resource.repeatCount == 1)
    let linear = play(resource, on: Entity(), steps: [0.5, 0.5, 1, 1])
    #expect(close(linear[0], [0.5, 0, 0]) && close(linear[1], [1, 0, 0]) && close(linear[2], [2, 0, 0]))
    #expect(close(linear[3], [2, 0, 0]), "holds the end")

    var eased = definition
    eased.timing = .easeIn
    let easedPositions = play(try AnimationResource.generate(with: eased), on: Entity(), steps: [0.5])
    let expected = 2 * AnimationTimingFunction.easeIn.progress(at: 0.25)
    #expect(abs(easedPositions[0].x - expected) < 1e-4 && easedPositions[0].x < 0.5)
  }

  @Test func withoutFromItStartsWhereTheEntityIsAndByComposes() throws {
    let entity = Entity()
    entity.position = [1, 2, 3]
    let by = FromToByAnimation<Transform>(by: Transform(translation: [0, 1, 0]), duration: 1)
    let positions = play(try AnimationResource.generate(with: by), on: entity, steps: [0.5, 0.5])
    #expect(close(positions[0], [1, 2.5, 3]) && close(positions[1], [1, 3, 3]))

    let scaled = Entity()
    scaled.scale = [2, 2, 2]
    let to = FromToByAnimation<Transform>(to: Transform(scale: [4, 4, 4]), duration: 1)
    scaled.playAnimation(try AnimationResource.generate(with: to))
    _ = scaled.advancePlaybacks(by: 0.5)
    #expect(close(scaled.scale, [3, 3, 3]))
  }

  @Test func delaySpeedAndRepeatModesShapeThePlayback() throws {
    let from = Transform(translation: [0, 0, 0])
    let to = Transform(translation: [1, 0, 0])
    let delayed = FromToByAnimation(from: from, to: to, duration: 1, delay: 1, speed: 2)
    let resource = try AnimationResource.generate(with: delayed)
    #expect(resource.duration == 1.5)
    let positions = play(resource, on: Entity(), steps: [0.5, 0.75, 0.25])
    #expect(
      close(positions[0], .zero) && close(positions[1], [0.5, 0, 0]) && close(positions[2], [1, 0, 0]))

    let bouncing = FromToByAnimation(from: from, to: to, duration: 1, repeatMode: .autoReverse)
    let bounce = try AnimationResource.generate(with: bouncing)
    #expect(bounce.repeatCount == .infinity && bounce.duration == 2)
    let back = play(bounce, on: Entity(), steps: [1, 0.5, 0.5, 0.25])
    #expect(close(back[0], [1, 0, 0]) && close(back[1], [0.5, 0, 0]) && close(back[2], .zero))
    #expect(close(back[3], [0.25, 0, 0]), "and forwards again")
  }

  @Test func definitionsOfOtherTargetsAreRefused() {
    let joints = FromToByAnimation<Transform>(name: "arm", to: .identity, bindTarget: .jointTransforms)
    #expect(throws: AnimationDefinitionError.self) { try AnimationResource.generate(with: joints) }
  }
}
