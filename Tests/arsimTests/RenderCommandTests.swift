import ARSim
import ARSimTestSupport
import Foundation
import Testing

@testable import arsim

/// The colours `arsim render --help` documents.
private let tableColor = RenderColor(0xFF, 0x8C, 0x00)
private let floorColor = RenderColor(0x1E, 0x88, 0xE5)
private let planeAlpha = 0.4

/// Whether `a` and `b` differ by at most `tolerance` in every channel.
private func close(_ a: RenderColor, _ b: RenderColor, tolerance: Int = 2) -> Bool {
  abs(Int(a.red) - Int(b.red)) <= tolerance && abs(Int(a.green) - Int(b.green)) <= tolerance
    && abs(Int(a.blue) - Int(b.blue)) <= tolerance
}

func pixel(_ image: RGBImage, _ x: Int, _ y: Int) -> RenderColor {
  let i = 3 * (y * image.width + x)
  return RenderColor(image.pixels[i], image.pixels[i + 1], image.pixels[i + 2])
}

private func decodePNG(_ path: String) throws -> RGBImage {
  let data = try #require(FileManager.default.contents(atPath: path), "\(path) is missing")
  return try ImageCodec.decodeRGB([UInt8](data))
}

/// Checks that `text` is well-formed XML by structure: one root element, every start tag closed in
/// order, attributes quoted, no stray `<` or `&`. Returns the element names in document order.
private func xmlElements(_ text: String) throws -> [String] {
  struct Malformed: Error, CustomStringConvertible { var description: String }
  var names: [String] = []
  var stack: [String] = []
  var roots = 0
  var rest = Substring(text)
  func checkEntities(_ s: Substring) throws {
    var remainder = s
    while let amp = remainder.firstIndex(of: "&") {
      let tail = remainder[amp...]
      guard ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(where: { tail.hasPrefix($0) }) else {
        throw Malformed(description: "bare & in \(tail.prefix(20))")
      }
      remainder = remainder[remainder.index(after: amp)...]
    }
  }
  while let open = rest.firstIndex(of: "<") {
    let content = rest[..<open]
    if stack.isEmpty, !content.allSatisfy(\.isWhitespace) {
      throw Malformed(description: "text outside root")
    }
    try checkEntities(content)
    rest = rest[open...]
    if rest.hasPrefix("<?") {
      guard let end = rest.range(of: "?>") else { throw Malformed(description: "unterminated <?") }
      rest = rest[end.upperBound...]
      continue
    }
    if rest.hasPrefix("<!--") {
      guard let end = rest.range(of: "-->") else { throw Malformed(description: "unterminated comment") }
      rest = rest[end.upperBound...]
      continue
    }
    // A tag: find its end outside quoted attribute values.
    var inQuote = false
    var end: Substring.Index?
    var i = rest.index(after: rest.startIndex)
    while i < rest.endIndex {
      let c = rest[i]
      if c == "\"" { inQuote.toggle() }
      if !inQuote, c == "<" { throw Malformed(description: "< inside a tag") }
      if !inQuote, c == ">" {
        end = i
        break
      }
      i = rest.index(after: i)
    }
    guard let close = end else { throw Malformed(description: "unterminated tag") }
    let tag = rest[rest.index(after: rest.startIndex)..<close]
    rest = rest[rest.index(after: close)...]
    if tag.hasPrefix("/") {
      let name = String(tag.dropFirst()).trimmingCharacters(in: .whitespaces)
      guard stack.popLast() == name else {
        throw Malformed(description: "</\(name)> closes the wrong element")
      }
      continue
    }
    let selfClosing = tag.hasSuffix("/")
    let body = selfClosing ? tag.dropLast() : tag
    let name = String(body.prefix { !$0.isWhitespace })
    guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == ":" }) else {
      throw Malformed(description: "bad element name '\(name)'")
    }
    // Attributes: name="value" pairs.
    var attributes = body.dropFirst(name.count)
    while let first = attributes.firstIndex(where: { !$0.isWhitespace }) {
      attributes = attributes[first...]
      guard let equals = attributes.firstIndex(of: "="),
        attributes[attributes.index(after: equals)] == "\"",
        let closing = attributes[attributes.index(equals, offsetBy: 2)...].firstIndex(of: "\"")
      else { throw Malformed(description: "unquoted attribute in <\(name)>") }
      try checkEntities(attributes[attributes.index(equals, offsetBy: 2)..<closing])
      attributes = attributes[attributes.index(after: closing)...]
    }
    if stack.isEmpty { roots += 1 }
    names.append(name)
    if !selfClosing { stack.append(name) }
  }
  guard stack.isEmpty, roots == 1, rest.allSatisfy(\.isWhitespace) else {
    throw Malformed(description: "unclosed \(stack) or \(roots) roots")
  }
  return names
}

/// A PLY file's header counts and body lines.
private struct PLY {
  var elements: [(name: String, count: Int, properties: [String])] = []
  var body: [[String]] = []

  init(path: String) throws {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    #expect(lines.first == "ply")
    #expect(lines.dropFirst().first == "format ascii 1.0")
    let headerEnd = try #require(lines.firstIndex(of: "end_header"))
    for line in lines[..<headerEnd] {
      let fields = line.split(separator: " ").map(String.init)
      if fields.first == "element" {
        elements.append((fields[1], try #require(Int(fields[2])), []))
      } else if fields.first == "property" {
        elements[elements.count - 1].properties.append(fields.dropFirst().joined(separator: " "))
      }
    }
    body = lines[(headerEnd + 1)...].map { $0.split(separator: " ").map(String.init) }
  }
}

@Suite struct RenderCommandTests {
  /// One render of the tabletop, shared by the checks below (replaying it takes seconds).
  @Test func rendersTabletop() throws {
    try #require(Datasets.exists("tabletop"))
    let folder = Datasets.path("tabletop")
    let out = RecordingFixtures.temporaryFolder("arsim-render") + "/out"
    let result = try CLI.run(["render", folder, "--out", out, "--every", "1000"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("images: 2 (every 1000 frames and the last)"))
    #expect(result.stderr.contains("replay: 151/151 frames"))

    // The files, and nothing left under a temporary name.
    let files = Set(try FileManager.default.contentsOfDirectory(atPath: out))
    #expect(
      files == [
        "frame-000000.png", "frame-000150.png", "trajectory.svg", "planes.ply", "points.ply",
        "trajectory.tum",
        "events.jsonl",
      ])

    // Images: the recording's size; the badge shows initializing, then normal.
    let first = try decodePNG(out + "/frame-000000.png")
    let last = try decodePNG(out + "/frame-000150.png")
    #expect(first.width == 320 && first.height == 240)
    #expect(last.width == 320 && last.height == 240)
    #expect(pixel(first, 6, 6) == RenderPalette.limited)
    #expect(pixel(last, 6, 6) == RenderPalette.normal)

    // The table top (ground truth: 1.2 x 0.8 m at height 0.75 m around the origin) seen in the last
    // frame by its ground-truth pose: the table colour is blended over the recorded image there.
    var options = FrameSourceOptions()
    options.decodeColor = true
    options.loadDepth = false
    var source = try Recording.open(folder: folder, format: nil, options: options)
    var lastFrame: RecordedFrame?
    while let frame = try source.nextFrame() { lastFrame = frame }
    let recorded = try #require(lastFrame)
    let k = source.info.intrinsics
    let worldFromOptical = try #require(recorded.groundTruth)
    let centre = worldFromOptical.inverse.apply(to: SIMD3(0, 0.75, 0))
    let u = Int((k.fx * centre.x / centre.z + k.cx).rounded())
    let v = Int((k.fy * centre.y / centre.z + k.cy).rounded())
    #expect((40..<280).contains(u) && (40..<200).contains(v), "table centre at \(u), \(v)")
    guard case .rgb(let original) = recorded.capturedImage else {
      Issue.record("the recording's image is not colour")
      return
    }
    var table = 0
    var floor = 0
    var window = 0
    for y in (v - 4)...(v + 4) {
      for x in (u - 4)...(u + 4) {
        window += 1
        let background = pixel(original, x, y)
        if close(pixel(last, x, y), tableColor.blended(over: background, alpha: planeAlpha)) { table += 1 }
        if close(pixel(last, x, y), floorColor.blended(over: background, alpha: planeAlpha)) { floor += 1 }
      }
    }
    // Feature point dots cover a few pixels; the rest is table, never floor (the table is nearer).
    #expect(table * 10 >= window * 7, "\(table) of \(window) pixels show the table")
    #expect(floor == 0)
    // The sky (top right, above the horizon) is left as recorded.
    #expect(pixel(last, 300, 20) == pixel(original, 300, 20))

    // The SVG is well-formed and holds both trajectories, the planes and the scale bar.
    let svg = try String(contentsOfFile: out + "/trajectory.svg", encoding: .utf8)
    let elements = try xmlElements(svg)
    #expect(elements.first == "svg")
    #expect(elements.filter { $0 == "polyline" }.count >= 2)
    #expect(svg.contains("stroke=\"\(RenderPalette.estimate.hex)\""))
    #expect(svg.contains("stroke=\"\(RenderPalette.groundTruth.hex)\""))
    #expect(svg.contains("fill=\"\(tableColor.hex)\""))
    #expect(svg.contains("fill=\"\(floorColor.hex)\""))
    #expect(svg.contains("stroke-dasharray"))  // ground-truth planes
    #expect(svg.contains(">1 m</text>"))

    // planes.ply: the header's counts match the body; each face indexes its own vertices.
    let planes = try PLY(path: out + "/planes.ply")
    #expect(planes.elements.map(\.name) == ["vertex", "face"])
    let vertexCount = planes.elements[0].count
    let faceCount = planes.elements[1].count
    #expect(faceCount == 2)  // the table and the floor
    #expect(planes.body.count == vertexCount + faceCount)
    var indexed = 0
    for face in planes.body.suffix(faceCount) {
      let n = try #require(Int(face[0]))
      #expect(face.count == 1 + n + 3)
      #expect(face[1...n].allSatisfy { Int($0).map { (0..<vertexCount).contains($0) } ?? false })
      indexed += n
    }
    #expect(indexed == vertexCount)
    #expect(planes.body.prefix(vertexCount).allSatisfy { $0.count == 6 })
    let colours = Set(planes.body.suffix(faceCount).map { $0.suffix(3).joined(separator: " ") })
    #expect(colours == ["255 140 0", "30 136 229"])

    // points.ply: one row per identifier.
    let points = try PLY(path: out + "/points.ply")
    #expect(points.elements.count == 1)
    #expect(points.elements[0].properties == ["float x", "float y", "float z", "uint id", "int frame"])
    #expect(points.body.count == points.elements[0].count)
    #expect(points.body.count > 100)
    #expect(Set(points.body.map { $0[3] }).count == points.body.count)

    // trajectory.tum and events.jsonl.
    let tum = try String(contentsOfFile: out + "/trajectory.tum", encoding: .utf8)
      .split(separator: "\n").filter { !$0.hasPrefix("#") }
    #expect(tum.count > 100)
    #expect(tum.allSatisfy { $0.split(separator: " ").count == 8 })
    let events = try String(contentsOfFile: out + "/events.jsonl", encoding: .utf8).split(separator: "\n")
    #expect(events.first?.hasPrefix("{\"t\":") == true)
    #expect(events.contains { $0.contains("\"event\":\"didAdd\"") })
    #expect(events.contains { $0.contains("\"classification\":\"table\"") })
  }

  @Test func optionsAreValidated() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 1)
    let missingOut = try CLI.run(["render", folder])
    #expect(missingOut.status == 2)
    #expect(missingOut.stderr.contains("missing --out DIR"))
    let badEvery = try CLI.run(["render", folder, "--out", folder + "/out", "--every", "0"])
    #expect(badEvery.status == 2)
    #expect(badEvery.stderr.contains("--every must be a positive whole number"))
    let help = try CLI.run(["render", "--help"])
    #expect(help.status == 0)
    for option in [
      "--out", "--every", "--video", "--format", "--intrinsics", "--mode", "--planes", "#FF8C00",
    ] {
      #expect(help.stdout.contains(option), "help lacks \(option)")
    }
  }

  @Test func writesAVideoOfEveryFrame() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 4)
    let out = RecordingFixtures.temporaryFolder("arsim-render")
    let result = try CLI.run(["render", folder, "--out", out, "--video", "--planes", "none", "--every", "3"])
    #expect(result.status == 0, "\(result.stderr)")
    let files = Set(try FileManager.default.contentsOfDirectory(atPath: out))
    #expect(files.isSuperset(of: ["frame-000000.png", "frame-000003.png", "video.mp4"]))
    #expect(!files.contains { $0.contains(".partial") })
    let reader = try VideoReader(path: out + "/video.mp4")
    var count = 0
    while try reader.nextRGBFrame() != nil { count += 1 }
    #expect(count == 4)
    #expect(reader.width == 32 && reader.height == 24)
  }

  /// FFmpeg's libraries are loaded when a video is first opened: when they do not load, the error
  /// names the library and the packages to install, and nothing is written. The dynamic loader looks
  /// in LD_LIBRARY_PATH first, so a folder of empty files with libavformat's names (every major
  /// version FFmpeg has had) stands for a machine whose FFmpeg is broken.
  @Test func aMissingFFmpegIsAnErrorNamingIt() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 4)
    let out = RecordingFixtures.temporaryFolder("arsim-render")
    let libraries = RecordingFixtures.temporaryFolder("arsim-no-ffmpeg")
    try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
    for major in 50...70 {
      #expect(
        FileManager.default.createFile(atPath: "\(libraries)/libavformat.so.\(major)", contents: Data()))
    }
    let result = try CLI.run(
      ["render", folder, "--out", out, "--video", "--planes", "none"],
      environment: ["LD_LIBRARY_PATH": libraries])
    #expect(result.status == 1)
    #expect(result.stderr.contains("FFmpeg (needed for video) does not load: \(libraries)/libavformat.so."))
    #expect(result.stderr.contains("install libavformat"), "\(result.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: out)
    #expect(!files.contains { $0.hasSuffix(".png") || $0.hasSuffix(".mp4") }, "\(files)")
  }

  /// A video that cannot be opened (its temporary path is taken by a folder) is an error naming it,
  /// and no frame image was written before it.
  @Test func aVideoThatCannotBeOpenedFailsBeforeAnyImage() throws {
    let folder = try RecordingFixtures.writeARSim(frames: 4)
    let out = RecordingFixtures.temporaryFolder("arsim-render")
    try FileManager.default.createDirectory(
      atPath: out + "/video.partial.mp4", withIntermediateDirectories: true)
    let result = try CLI.run(["render", folder, "--out", out, "--video", "--planes", "none", "--every", "3"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("video.partial.mp4"), "\(result.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: out)
    #expect(!files.contains { $0.hasSuffix(".png") || $0 == "video.mp4" }, "\(files)")
  }
}

@Suite struct RenderDrawingTests {
  @Test func scanlineCoversPixelCentresInside() {
    var covered: [SIMD2<Int>] = []
    // A square from 0.5 to 3.5 holds the centres 1, 2, 3 in each direction.
    Scanline.cover(
      [SIMD2(0.5, 0.5), SIMD2(3.5, 0.5), SIMD2(3.5, 3.5), SIMD2(0.5, 3.5)], width: 10, height: 10
    ) {
      covered.append(SIMD2($0, $1))
    }
    #expect(covered.count == 9)
    #expect(covered.allSatisfy { (1...3).contains($0.x) && (1...3).contains($0.y) })

    // Two triangles sharing a diagonal cover each pixel of their square exactly once.
    var counts = [Int](repeating: 0, count: 100)
    let a = SIMD2(0.0, 0.0)
    let b = SIMD2(10.0, 0.0)
    let c = SIMD2(10.0, 10.0)
    let d = SIMD2(0.0, 10.0)
    for triangle in [[a, b, c], [a, c, d]] {
      Scanline.cover(triangle, width: 10, height: 10) { counts[$1 * 10 + $0] += 1 }
    }
    #expect(counts.allSatisfy { $0 == 1 })

    // Far outside coordinates are clipped to the image.
    var inside = 0
    Scanline.cover([SIMD2(-1e6, -1e6), SIMD2(1e6, -1e6), SIMD2(0, 1e6)], width: 4, height: 3) { x, y in
      if (0..<4).contains(x), (0..<3).contains(y) { inside += 1 }
    }
    #expect(inside == 12)
  }

  @Test func polygonsAreClippedToTheNearPlane() {
    // A square in the camera's y = 0 plane from 1 m behind to 3 m in front of the camera.
    let square: [SIMD3<Double>] = [SIMD3(-1, 0, 1), SIMD3(1, 0, 1), SIMD3(1, 0, -3), SIMD3(-1, 0, -3)]
    let clipped = FrameOverlay.clipInFront(square, near: 0.5)
    #expect(
      clipped == [
        ClippedVertex(point: SIMD3(1, 0, -0.5), startsOriginalEdge: true),
        ClippedVertex(point: SIMD3(1, 0, -3), startsOriginalEdge: true),
        ClippedVertex(point: SIMD3(-1, 0, -3), startsOriginalEdge: true),
        ClippedVertex(point: SIMD3(-1, 0, -0.5), startsOriginalEdge: false),
      ])
    #expect(FrameOverlay.clipInFront(square.map { $0 + SIMD3(0, 0, 5) }, near: 0.5).isEmpty)
  }

  /// A 64 x 48 grey frame from a camera at the origin looking along −z, with the given planes.
  func frame(
    _ anchors: [ARAnchor], points: [simd_float3] = [], transform: simd_float4x4 = matrix_identity_float4x4
  ) -> ARFrame {
    let camera = ARCamera(
      transform: transform,
      intrinsics: simd_float3x3(SIMD3(40, 0, 0), SIMD3(0, 40, 0), SIMD3(31.5, 23.5, 1)),
      imageResolution: CGSize(width: 64, height: 48))
    return ARFrame(
      timestamp: 1, camera: camera, anchors: anchors,
      rawFeaturePoints: ARPointCloud(points: points, identifiers: points.indices.map { UInt64($0) }),
      capturedImage: .gray(GrayImage(width: 64, height: 48, fill: 100)), sceneDepth: nil, frameIndex: 7)
  }

  func plane(
    transform: simd_float4x4, boundary: [simd_float3], classification: ARPlaneAnchor.Classification
  ) -> ARPlaneAnchor {
    ARPlaneAnchor(
      identifier: UUID(), transform: transform, alignment: .horizontal, center: .zero,
      planeExtent: ARPlaneExtent(width: 1, height: 1, rotationOnYAxis: 0),
      geometry: ARPlaneGeometry(boundary: boundary), classification: classification, sessionIdentifier: nil)
  }

  @Test func floorBehindTheCameraIsClippedBelowTheHorizon() {
    // A floor 1 m below the camera reaching from 5 m behind it to 5 m in front: only the image's lower
    // half shows it (the horizon is at row 23.5); without near-plane clipping the part behind would
    // project mirrored into the upper half.
    var floorTransform = matrix_identity_float4x4
    floorTransform.columns.3 = SIMD4(0, -1, 0, 1)
    let floor = plane(
      transform: floorTransform,
      boundary: [SIMD3(-5, 0, 5), SIMD3(5, 0, 5), SIMD3(5, 0, -5), SIMD3(-5, 0, -5)],
      classification: .floor)
    let image = FrameOverlay.draw(frame([floor]))
    let grey = RenderColor(100, 100, 100)
    let tinted = RenderPalette.floor.blended(over: grey, alpha: RenderPalette.planeAlpha)
    // Row 36 looks 1 m down at 3.2 m ahead, inside the floor; row 18 looks up (below the label).
    #expect(pixel(image, 40, 36) == tinted)
    #expect(pixel(image, 40, 18) == grey)
    // The far edge (5 m ahead) is outlined at row 23.5 + 40 / 5 = 31.5.
    #expect(pixel(image, 40, 31) == RenderPalette.floor || pixel(image, 40, 32) == RenderPalette.floor)
  }

  @Test func nearerPlaneWinsAndPointsAreDotted() {
    // A wall 4 m ahead facing the camera, and a table 2 m ahead covering the wall's centre.
    func facing(at distance: Float) -> simd_float4x4 {
      // Anchor y axis (the normal) towards the camera (+z), x to the right, z down.
      simd_float4x4(
        SIMD4(1, 0, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, -1, 0, 0), SIMD4(0, 0, -distance, 1))
    }
    let square = { (half: Float) in
      [SIMD3(-half, 0, -half), SIMD3(-half, 0, half), SIMD3(half, 0, half), SIMD3(half, 0, -half)]
    }
    let wall = plane(transform: facing(at: 4), boundary: square(2), classification: .wall)
    let table = plane(transform: facing(at: 2), boundary: square(0.25), classification: .table)
    let grey = RenderColor(100, 100, 100)
    for anchors in [[wall, table], [table, wall]] {
      let image = FrameOverlay.draw(frame(anchors, points: [SIMD3(0.5, -0.5, -2)]))
      // The centre shows the table whatever the order; further out, the wall.
      #expect(
        pixel(image, 31, 23) == RenderPalette.table.blended(over: grey, alpha: RenderPalette.planeAlpha))
      #expect(pixel(image, 31, 40) == RenderPalette.wall.blended(over: grey, alpha: RenderPalette.planeAlpha))
      // The point at (0.5, −0.5) 2 m ahead is at pixel (41.5, 33.5).
      #expect(pixel(image, 41, 33) == RenderPalette.featurePoint)
    }
  }

  @Test func colourHelpers() {
    #expect(RenderColor(255, 140, 0).hex == "#FF8C00")
    #expect(
      RenderColor(200, 0, 100).blended(over: RenderColor(0, 100, 100), alpha: 0.5)
        == RenderColor(100, 50, 100))
    #expect(TopDownPlot.niceLength(3.7) == 2)
    #expect(TopDownPlot.niceLength(0.7) == 0.5)
    #expect(TopDownPlot.niceLength(10) == 10)
    #expect(SVGDocument.number(12) == "12")
    #expect(SVGDocument.number(3.5) == "3.5")
    #expect(SVGDocument.number(-0.001) == "0")
    #expect(SVGDocument.escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;")
  }
}
