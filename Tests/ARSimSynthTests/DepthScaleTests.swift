import ARSim
import ARSimMath
import ARSimSynth
import ARSimTestSupport
import Foundation
import Testing

/// A phone profile's `depthScale`: a depth sensor reading long or short by a known factor, with exact
/// ground truth (the real stray-demo2's LiDAR reads about 3% longer than ARKit's trajectory), so that
/// what depth-only tracking makes of such an error can be measured.
@Suite struct DepthScaleTests {
  static func phoneScene(depthScale: Double) -> SyntheticScene {
    var scene = SynthFixtures.scene()
    var phone = PhoneProfile()
    phone.depthWidth = 32
    phone.depthHeight = 24
    phone.droppedFrames = 0
    phone.depthScale = depthScale
    scene.sensors.phone = phone
    return scene
  }

  /// Every depth pixel is the unscaled one times the factor (the same pixels, the same confidence);
  /// the pose is the same.
  @Test func theDepthIsScaledAndTheGroundTruthIsNot() throws {
    let exact = try SceneRenderer(scene: Self.phoneScene(depthScale: 1)).render(frame: 4)
    let long = try SceneRenderer(scene: Self.phoneScene(depthScale: 1.05)).render(frame: 4)
    let a = try #require(exact.depth)
    let b = try #require(long.depth)
    #expect(a.width == 32 && b.width == 32)
    #expect(exact.confidence?.levels == long.confidence?.levels)
    var valid = 0
    for (x, y) in zip(a.metres, b.metres) {
      #expect(x.isFinite == y.isFinite)
      guard x.isFinite, y.isFinite else { continue }
      valid += 1
      #expect(abs(y - 1.05 * x) <= 1e-6 * y)
    }
    #expect(valid > a.metres.count / 2)
    #expect(exact.pose.translation == long.pose.translation)
    #expect(exact.pose.rotation.vector == long.pose.rotation.vector)
  }

  /// Out of range it is refused, naming the key.
  @Test func aDepthScaleOutOfRangeIsRefused() throws {
    #expect(throws: SceneError.self) {
      try SceneRenderer(scene: Self.phoneScene(depthScale: 0))
    }
  }

  /// `arsim generate --profile phone --depth-scale S`: the recorded depth is S times the exact run's,
  /// the ground truth the same; refused out of range or without a phone profile.
  @Test func generateTakesADepthScale() throws {
    let folder = try SynthFixtures.temporaryFolder("cli-depth-scale")
    let scene = folder + "/tiny.json"
    try JSONEncoder().encode(SynthFixtures.scene()).write(to: URL(fileURLWithPath: scene))
    func generate(_ name: String, _ extra: [String]) throws -> CLI.Result {
      try CLI.run(["generate", scene, folder + "/" + name, "--frames", "3", "--float-depth"] + extra)
    }
    let exact = try generate("exact", ["--profile", "phone"])
    let long = try generate("long", ["--profile", "phone", "--depth-scale", "1.05"])
    #expect(exact.status == 0 && long.status == 0, "\(exact.stderr)\(long.stderr)")
    var a = try Recording.open(folder: folder + "/exact")
    var b = try Recording.open(folder: folder + "/long")
    var valid = 0
    while let x = try a.nextFrame() {
      let y = try #require(try b.nextFrame())
      #expect(x.groundTruth?.translation == y.groundTruth?.translation)
      for (p, q) in zip(try #require(x.depth).metres, try #require(y.depth).metres) where p.isFinite {
        valid += 1
        #expect(abs(q - 1.05 * p) <= 1e-6 * q)
      }
    }
    #expect(valid > 0)
    let unbounded = try generate("unbounded", ["--profile", "phone", "--depth-scale", "3"])
    #expect(unbounded.status != 0 && unbounded.stderr.contains("--depth-scale"))
    let noPhone = try generate("no-phone", ["--depth-scale", "1.05"])
    #expect(noPhone.status != 0 && noPhone.stderr.contains("--depth-scale needs a phone profile"))
  }
}
