import ARSim
import Foundation

/// The small valid recordings the targets damage one file of: 3 frames of 32x24 images (depth
/// 16x12 in the phone layouts), in the ARSim, TUM, Stray Scanner, Record3D (folder), ARKitScenes
/// and 3D Scanner App (colour on the first frame only) layouts.
enum FuzzFixture {
  static func write(_ folder: String) throws {
    let fm = FileManager.default
    try? fm.removeItem(atPath: folder)
    for sub in [
      "arsim/rgb", "arsim/depth", "tum/rgb", "tum/depth", "stray/depth", "record3d/rgb", "record3d/depth",
      "arkitscenes/lowres_wide", "arkitscenes/lowres_depth", "arkitscenes/lowres_wide_intrinsics",
      "scanner3d/All_Data",
    ] {
      try fm.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true)
    }
    let gray = GrayImage(
      width: 32, height: 24, pixels: (0..<(32 * 24)).map { UInt8(truncatingIfNeeded: $0 * 7) })
    let depth = (0..<(32 * 24)).map { UInt16(1000 + $0) }
    for sub in ["arsim", "tum"] {
      try ImageCodec.write(gray, to: "\(folder)/\(sub)/rgb/a.png")
      try ImageCodec.writeDepth16(width: 32, height: 24, values: depth, to: "\(folder)/\(sub)/depth/a.png")
    }
    func text(_ name: String, _ lines: [String]) throws {
      try (lines.joined(separator: "\n") + "\n").write(
        toFile: folder + "/" + name, atomically: false, encoding: .utf8)
    }
    try text(
      "arsim/session.json",
      [
        #"{"format": "arsim-recording", "version": 1, "depthScale": 0.001, "frameRate": 10,"#,
        #" "camera": {"fx": 30, "fy": 30, "cx": 15.5, "cy": 11.5, "width": 32, "height": 24},"#,
        #" "sensors": {"color": true, "depth": true, "accelerometer": true, "gyroscope": true},"#,
        #" "frames": "frames.txt", "imu": "imu.txt","#,
        #" "groundTruth": {"trajectory": "groundtruth.txt", "gravity": [0, -1, 0]}}"#,
      ])
    let times = ["0.0", "0.1", "0.2"]
    try text("arsim/frames.txt", ["# timestamp image depth"] + times.map { "\($0) rgb/a.png depth/a.png" })
    try text("arsim/imu.txt", (0..<30).map { "\(Double($0) * 0.01) 0 -9.81 0 0.01 0.02 0.03" })
    try text("arsim/groundtruth.txt", times.map { "\($0) 0 0 \($0) 0 0 0 1" })
    try text("tum/rgb.txt", times.map { "\($0) rgb/a.png" })
    try text("tum/depth.txt", times.map { "\($0) depth/a.png" })
    try text("tum/accelerometer.txt", (0..<30).map { "\(Double($0) * 0.01) 0 -9.81 0" })
    try text("tum/groundtruth.txt", times.map { "\($0) 0 0 \($0) 0 0 0 1" })
    try text("tum/intrinsics.txt", ["30 30 15.5 11.5"])
    try writePhoneLayouts(folder, gray: gray, depth: depth, text: text)
  }

  /// Stray Scanner, Record3D (EXR+JPG folder) and ARKitScenes, as the apps write them.
  private static func writePhoneLayouts(
    _ folder: String, gray: GrayImage, depth: [UInt16], text: (String, [String]) throws -> Void
  ) throws {
    let small = (0..<(16 * 12)).map { UInt16(1000 + $0) }
    let colour = RGBImage(width: 32, height: 24, pixels: gray.pixels.flatMap { [$0, $0 / 2, 255 - $0] })
    for i in 0..<3 {
      try ImageCodec.writeDepth16(
        width: 16, height: 12, values: small, to: "\(folder)/stray/depth/00000\(i).png")
      try ImageCodec.write(colour, to: "\(folder)/record3d/rgb/\(i).jpg")
      try ImageCodec.writeEXRDepth(  // as the app writes it: one HALF channel named R
        width: 16, height: 12, values: small.map { Float($0) * 0.001 },
        to: "\(folder)/record3d/depth/\(i).exr")
      let stem = "\(folder)/arkitscenes/lowres_%@/v_0.\(i)00.png"
      try ImageCodec.write(colour, to: stem.replacingOccurrences(of: "%@", with: "wide"))
      try ImageCodec.writeDepth16(
        width: 32, height: 24, values: depth, to: stem.replacingOccurrences(of: "%@", with: "depth"))
    }
    try text("stray/camera_matrix.csv", ["30.0, 0.0, 15.5", "0.0, 30.0, 11.5", "0.0, 0.0, 1.0"])
    try text(
      "stray/odometry.csv",
      ["timestamp, frame, x, y, z, qx, qy, qz, qw"]
        + (0..<3).map { "0.\($0), \($0), 0.\($0), 1.5, 0, 1, 0, 0, 0" })
    try text(
      "stray/imu.csv",
      ["timestamp, a_x, a_y, a_z, alpha_x, alpha_y, alpha_z"]
        + (0..<30).map { "\(Double($0) * 0.01), 0.01, -0.99, 0.02, 0.01, 0.02, 0.03" })
    try text(
      "record3d/metadata.json",
      [
        #"{"w": 32, "h": 24, "dw": 16, "dh": 12, "fps": 60, "K": [30, 0, 0, 0, 30, 0, 15.5, 11.5, 1],"#,
        #" "poses": [[0, 0, 0, 1, 0, 1.5, 0.2], [0, 0, 0, 1, 0.1, 1.5, 0.2], [0, 0, 0, 1, 0.2, 1.5, 0.2]],"#,
        #" "frameTimestamps": [0, 0.0166666, 0.0333333]}"#,
      ])
    for i in 0..<3 {
      try text("arkitscenes/lowres_wide_intrinsics/v_0.\(i)00.pincam", ["32 24 30 30 15.5 11.5"])
    }
    try text("arkitscenes/lowres_wide.traj", (0..<3).map { "0.\($0) 0.01 0.02 0.03 0.\($0) 1.5 0.2" })
    try writeScanner3D(folder + "/scanner3d/All_Data", colour: colour, depth: small, text: text)
  }

  /// The 3D Scanner App's "All Data" export: three frames, colour on the first only (as the app keeps
  /// it on every third).
  private static func writeScanner3D(
    _ folder: String, colour: RGBImage, depth: [UInt16], text: (String, [String]) throws -> Void
  ) throws {
    try ImageCodec.write(colour, to: folder + "/frame_00000.jpg")
    let levels = GrayImage(width: 16, height: 12, pixels: (0..<(16 * 12)).map { UInt8($0 % 3) })
    for i in 0..<3 {
      try ImageCodec.writeDepth16(width: 16, height: 12, values: depth, to: "\(folder)/depth_0000\(i).png")
      try ImageCodec.write(levels, to: "\(folder)/conf_0000\(i).png")
      try text(
        "scanner3d/All_Data/frame_0000\(i).json",
        [
          #"{"cameraPoseARFrame": [1, 0, 0, 0.\#(i), 0, 1, 0, 1.5, 0, 0, 1, 0.2, 0, 0, 0, 1],"#,
          #" "intrinsics": [30, 0, 15.5, 0, 30, 11.5, 0, 0, 1], "time": 10.\#(i), "frame_index": \#(i)}"#,
        ])
    }
    try text("scanner3d/All_Data/info.json", [#"{"title": "fixture", "numImages": 3}"#])
  }

  /// A small valid world map in ARSim's format (Sources/ARSim/Tracking/MapArchive.swift): one
  /// keyframe of three features, a named anchor and a plane anchor.
  static func worldMap() -> Data {
    var bytes = Array("ARSIMMAP".utf8)
    func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    func f64(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 } }
    func f32(_ v: Float) { u32(v.bitPattern) }
    func identity() { for i in 0..<16 { f32(i % 5 == 0 ? 1 : 0) } }
    u32(1)
    u32(1)
    for v in [0.0, 0, 0, 1, 0.1, 0.2, 0.3] { f64(v) }
    u32(3)
    for k in 0..<3 {
      for w in 0..<4 { withUnsafeBytes(of: UInt64(k * 4 + w).littleEndian) { bytes += $0 } }
      for v in [Double(k), 0.5, 2] { f64(v) }
    }
    u32(2)
    bytes += [0] + Array(repeating: 7, count: 16) + [1]
    u32(3)
    bytes += Array("cup".utf8)
    identity()
    bytes += [1] + Array(repeating: 9, count: 16) + [0]
    identity()
    bytes += [0, 6]
    for v: Float in [0, 0, 0, 1, 0.5, 0.1] { f32(v) }
    u32(3)
    for v: Float in [-0.5, 0, -0.25, 0.5, 0, -0.25, 0, 0, 0.25] { f32(v) }
    return Data(bytes)
  }
}
