import ARSim
import Foundation

/// Deterministic inputs for the vision tests.
enum VisionTestSupport {

  /// A fresh path in the temporary directory with the given extension (for example "png").
  static func temporaryPath(extension ext: String) -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("arsim-vision-\(UUID().uuidString).\(ext)").path
  }

  /// Reads a whole file.
  static func bytes(at path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// A smooth random texture: gray blobs (Gaussians of radius 2.5...7 px) on a mid-grey
  /// background, as a function of continuous coordinates. Rendering it with `offset`
  /// (dx, dy) gives image(x, y) = texture(x - dx, y - dy): the scene moved by the offset.
  struct Texture {
    private var blobs: [(x: Double, y: Double, sigma: Double, amplitude: Double)] = []

    init(width: Int, height: Int, seed: UInt64, density: Double = 0.004) {
      var generator = SplitMix64(seed: seed)
      // Blobs also cover a margin so that shifted renderings stay textured at the borders.
      let margin = 20.0
      let count = Int(density * (Double(width) + 2 * margin) * (Double(height) + 2 * margin))
      for _ in 0..<count {
        blobs.append(
          (
            x: generator.uniform(-margin, Double(width) + margin),
            y: generator.uniform(-margin, Double(height) + margin),
            sigma: generator.uniform(2.5, 7), amplitude: generator.uniform(-110, 110)
          ))
      }
    }

    func render(width: Int, height: Int, offset: SIMD2<Double> = .zero) -> GrayImage {
      var field = [Double](repeating: 128, count: width * height)
      for blob in blobs {
        let cx = blob.x + offset.x
        let cy = blob.y + offset.y
        let reach = 4 * blob.sigma
        let x0 = max(0, Int((cx - reach).rounded(.down)))
        let x1 = min(width - 1, Int((cx + reach).rounded(.up)))
        let y0 = max(0, Int((cy - reach).rounded(.down)))
        let y1 = min(height - 1, Int((cy + reach).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { continue }
        let scale = -1 / (2 * blob.sigma * blob.sigma)
        for y in y0...y1 {
          let dy = Double(y) - cy
          for x in x0...x1 {
            let dx = Double(x) - cx
            field[y * width + x] += blob.amplitude * exp((dx * dx + dy * dy) * scale)
          }
        }
      }
      return GrayImage(
        width: width, height: height, pixels: field.map { UInt8(max(0, min(255, $0.rounded()))) })
    }
  }

  /// Row-major rotation matrix of `angle` radians about `axis` (normalised here).
  static func rotation(axis: SIMD3<Double>, angle: Double) -> [Double] {
    let length = (axis * axis).sum().squareRoot()
    let k = axis / length
    let c = cos(angle)
    let s = sin(angle)
    let v = 1 - c
    return [
      c + k.x * k.x * v, k.x * k.y * v - k.z * s, k.x * k.z * v + k.y * s,
      k.y * k.x * v + k.z * s, c + k.y * k.y * v, k.y * k.z * v - k.x * s,
      k.z * k.x * v - k.y * s, k.z * k.y * v + k.x * s, c + k.z * k.z * v,
    ]
  }

  /// The angle in degrees of the rotation r1 r2^T (how far apart two rotations are).
  static func rotationDifferenceDegrees(_ r1: [Double], _ r2: [Double]) -> Double {
    // |r1 - r2|_F = 2 sqrt(2) sin(angle / 2); accurate for small angles, unlike acos of the trace.
    let frobenius = zip(r1, r2).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
    return 2 * asin(min(1, frobenius / (2 * 2.0.squareRoot()))) * 180 / Double.pi
  }

  /// Angle in degrees between two vectors.
  static func angleDegrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let cosine = (a * b).sum() / (((a * a).sum() * (b * b).sum()).squareRoot())
    return acos(max(-1, min(1, cosine))) * 180 / Double.pi
  }

  static func norm(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
  }
}
