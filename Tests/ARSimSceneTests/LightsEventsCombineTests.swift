import ARSimScene
import ARSimTestSupport
import Combine
import Foundation
import Testing

private struct Refused: Error, Equatable {
  let value: Int
}

@Suite struct LightsEventsCombineTests {
  @Test func lightsKeepTheirSettingsAndAimWithTheirEntity() {
    let point = PointLight()
    #expect(
      point.light.intensity == 26963.76 && point.light.attenuationRadius == 10 && point.light.color == .white)
    point.light.color = .systemOrange
    point.light.intensity = 1500
    #expect(
      point.components[PointLightComponent.self] == PointLightComponent(color: .systemOrange, intensity: 1500)
    )
    let sun = DirectionalLight()
    #expect(sun.shadow == nil && sun.light.intensity == 2145.7078)
    sun.shadow = DirectionalLightComponent.Shadow(maximumDistance: 3, depthBias: 2)
    #expect(sun.shadow?.maximumDistance == 3)
    let spot = SpotLight()
    spot.light.outerAngleInDegrees = 40
    spot.look(at: SIMD3(0, 0, 0), from: SIMD3(0, 2, 0), relativeTo: nil)
    let lightToWorld = spot.transformMatrix(relativeTo: nil)
    #expect(spot.light.illuminates(SIMD3(0, 0, 0), lightToWorld: lightToWorld), "straight below")
    #expect(spot.light.illuminates(SIMD3(0.5, 0, 0), lightToWorld: lightToWorld), "14 degrees off the axis")
    #expect(!spot.light.illuminates(SIMD3(1, 0, 0), lightToWorld: lightToWorld), "27 degrees: outside 20")
    #expect(!spot.light.illuminates(SIMD3(0, 4, 0), lightToWorld: lightToWorld), "behind the light")
    spot.light.attenuationRadius = 1.5
    #expect(!spot.light.illuminates(SIMD3(0, 0, 0), lightToWorld: lightToWorld), "beyond the radius")
    let model = ModelEntity(mesh: .generateBox(size: 0.1))
    model.components.set(ModelDebugOptionsComponent(visualizationMode: .normal))
    #expect(model.components[ModelDebugOptionsComponent.self]?.visualizationMode == .normal)
    let view = ARView(frame: .zero)
    view.renderOptions = [.disableMotionBlur, .disableGroundingShadows]
    view.environment.sceneUnderstanding.options.insert(.occlusion)
    #expect(
      view.renderOptions.contains(.disableGroundingShadows) && !view.renderOptions.contains(.disableHDR))
    #expect(view.environment.sceneUnderstanding.options == [.occlusion])
  }

  @Test func scenePublishersDeliverEventsUntilCancelled() throws {
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    var deltas: [TimeInterval] = []
    var token: AnyCancellable? = view.scene.publisher(for: SceneEvents.Update.self).sink {
      deltas.append($0.deltaTime)
    }
    let anchor = AnchorEntity(world: .zero)
    let box = Entity()
    anchor.addChild(box)
    view.scene.addAnchor(anchor)
    var completions = 0
    let other = Entity()
    anchor.addChild(other)
    let onBox = view.scene.publisher(for: AnimationEvents.PlaybackCompleted.self, on: box).sink { _ in
      completions += 1
    }
    let replay = try ARReplay(session: view.session, recording: Datasets.path("tabletop"))
    try replay.step()
    box.move(to: Transform(translation: SIMD3(0, 1, 0)), relativeTo: nil, duration: 0.2)
    other.move(to: Transform(translation: SIMD3(0, 1, 0)), relativeTo: nil, duration: 0.2)
    _ = try replay.step(frames: 9)
    #expect(deltas.count == 10 && deltas.first == 0 && deltas.dropFirst().allSatisfy { $0 > 0 })
    #expect(completions == 1, "only the box's move")
    token?.cancel()
    token = nil
    _ = try replay.step(frames: 5)
    #expect(deltas.count == 10, "nothing after cancelling")
    _ = onBox
  }

  @Test func removedGestureRecognizersStopRecognising() throws {
    let view = ARView(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
    let model = ModelEntity(
      mesh: .generateBox(size: 0.2), collisionShapes: [.generateBox(size: SIMD3(repeating: 0.2))])
    let recognizers = view.installGestures(.rotation, for: model)
    let rotation = try #require(recognizers.first)
    #expect(rotation.view === view && view.gestureRecognizers.count == 1)
    view.removeGestureRecognizer(rotation)
    #expect(rotation.view == nil && view.gestureRecognizers.isEmpty)
    view.addGestureRecognizer(rotation)
    view.addGestureRecognizer(rotation)
    #expect(rotation.view === view && view.gestureRecognizers.count == 1)
  }

  @Test func tryMapEndsWithTheThrownError() {
    var values: [Int] = []
    var completion: Subscribers.Completion<any Error>?
    let subject = PassthroughSubject<Int, Never>()
    let token = subject.tryMap { value -> Int in
      if value > 2 { throw Refused(value: value) }
      return value * 10
    }.sink(receiveCompletion: { completion = $0 }, receiveValue: { values.append($0) })
    for value in 1...5 { subject.send(value) }
    #expect(values == [10, 20])
    guard case .failure(let error) = completion else {
      Issue.record("tryMap should fail")
      return
    }
    #expect(error as? Refused == Refused(value: 3))
    _ = token
  }

  @Test func zipPairsValuesInOrderAndFinishesWithTheShorterSide() {
    let letters = PassthroughSubject<String, Never>()
    let numbers = PassthroughSubject<Int, Never>()
    var pairs: [String] = []
    var finished = false
    let token = letters.zip(numbers) { "\($0)\($1)" }.sink(
      receiveCompletion: { _ in finished = true }, receiveValue: { pairs.append($0) })
    letters.send("a")
    letters.send("b")
    #expect(pairs.isEmpty)
    numbers.send(1)
    #expect(pairs == ["a1"])
    numbers.send(2)
    numbers.send(3)
    letters.send("c")
    #expect(pairs == ["a1", "b2", "c3"])
    letters.send(completion: .finished)
    #expect(finished, "the letters are done and every letter is paired")
    numbers.send(4)
    #expect(pairs.count == 3)
    _ = token
  }
}
