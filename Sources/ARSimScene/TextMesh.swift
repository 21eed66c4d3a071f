import ARSim
internal import CFreeType
import Foundation

extension MeshResource {
  /// A font for text meshes (RealityKit's `MeshResource.Font`, UIKit's `UIFont`): a TrueType or
  /// OpenType file and a size, in metres for meshes (the height of the font's em square).
  public final class Font: Sendable, Hashable {
    /// The font's name: its file's name without extension (DejaVuSans, DejaVuSans-Bold, ...).
    public let fontName: String
    /// The size, metres for meshes.
    public let pointSize: CGFloat
    /// The font file.
    public let fileURL: URL

    init(fileURL: URL, size: CGFloat) {
      self.fileURL = fileURL
      fontName = fileURL.deletingPathExtension().lastPathComponent
      pointSize = size
    }

    /// The installed font named `name` (its file name without extension, compared ignoring case,
    /// spaces and hyphens) at `size`, or nil when no such file is installed (UIFont's `init(name:size:)`).
    public convenience init?(name: String, size: CGFloat) {
      guard let url = Self.installed(named: name) else { return nil }
      self.init(fileURL: url, size: size)
    }

    /// The system font at `size`: DejaVu Sans, Debian's default sans-serif (UIFont's
    /// `systemFont(ofSize:)`). Its file must be installed (`fonts-dejavu-core`) for text to have glyphs.
    public static func systemFont(ofSize size: CGFloat) -> Font {
      Font(fileURL: installed(named: "DejaVuSans") ?? URL(fileURLWithPath: systemFontPath), size: size)
    }

    /// The system font's bold face at `size`.
    public static func boldSystemFont(ofSize size: CGFloat) -> Font {
      Font(
        fileURL: installed(named: "DejaVuSans-Bold") ?? installed(named: "DejaVuSans")
          ?? URL(fileURLWithPath: systemFontPath), size: size)
    }

    /// The system font at `size` (the weight is not chosen: DejaVu Sans or its bold face).
    public static func systemFont(ofSize size: CGFloat, weight: Weight) -> Font {
      weight.rawValue >= Weight.semibold.rawValue ? boldSystemFont(ofSize: size) : systemFont(ofSize: size)
    }

    /// Font weights (UIFont's `UIFont.Weight`).
    public struct Weight: RawRepresentable, Sendable, Hashable {
      /// -1 (ultra light) ... 1 (black).
      public let rawValue: CGFloat
      /// A weight of this value.
      public init(rawValue: CGFloat) { self.rawValue = rawValue }
      /// Regular.
      public static let regular = Weight(rawValue: 0)
      /// Medium.
      public static let medium = Weight(rawValue: 0.23)
      /// Semibold.
      public static let semibold = Weight(rawValue: 0.3)
      /// Bold.
      public static let bold = Weight(rawValue: 0.4)
    }

    /// UIKit's standard system font size, 14.
    public static var systemFontSize: CGFloat { 14 }
    /// UIKit's label font size, 17.
    public static var labelFontSize: CGFloat { 17 }

    /// This font at another size.
    public func withSize(_ size: CGFloat) -> Font { Font(fileURL: fileURL, size: size) }

    /// A font described by name and size (UIKit's `UIFontDescriptor`).
    public struct Descriptor: Sendable, Hashable {
      /// The font's name.
      public var name: String
      /// The size; 0 leaves it to the font's user.
      public var pointSize: CGFloat
      /// A description of the font `name` at `size`.
      public init(name: String, size: CGFloat) {
        self.name = name
        pointSize = size
      }
    }

    /// The font `descriptor` names at `size` (the descriptor's size when `size` is 0), as UIFont's
    /// `init(descriptor:size:)`: when no font of that name is installed, the system font stands in, as
    /// UIKit substitutes a font for an unknown name.
    public convenience init(descriptor: Descriptor, size: CGFloat) {
      let url = Self.installed(named: descriptor.name) ?? Self.systemFont(ofSize: size).fileURL
      self.init(fileURL: url, size: size == 0 ? descriptor.pointSize : size)
    }

    /// The font's name and size.
    public var fontDescriptor: Descriptor { Descriptor(name: fontName, size: pointSize) }

    /// Whether both are the same file at the same size.
    public static func == (lhs: Font, rhs: Font) -> Bool {
      lhs.fileURL == rhs.fileURL && lhs.pointSize == rhs.pointSize
    }
    /// Hashes the file and the size.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(fileURL)
      hasher.combine(pointSize)
    }

    static let systemFontPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// The installed font file called `name` under the usual font folders, or nil.
    static func installed(named name: String) -> URL? {
      func key(_ text: String) -> String {
        text.lowercased().filter { $0 != " " && $0 != "-" && $0 != "_" }
      }
      let wanted = key(name)
      let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
      for folder in [
        "/usr/share/fonts", "/usr/local/share/fonts", home + "/.fonts", home + "/.local/share/fonts",
      ] {
        guard let files = FileManager.default.enumerator(atPath: folder) else { continue }
        for case let file as String in files {
          let url = URL(fileURLWithPath: folder + "/" + file)
          guard ["ttf", "otf"].contains(url.pathExtension.lowercased()) else { continue }
          if key(url.deletingPathExtension().lastPathComponent) == wanted { return url }
        }
      }
      return nil
    }
  }

  /// A mesh of `string` in `font`, extruded `extrusionDepth` metres along z, as RealityKit's
  /// `generateText(_:extrusionDepth:font:containerFrame:alignment:lineBreakMode:)`.
  ///
  /// Glyphs are the font's outlines (FreeType), curves flattened, filled by the font's winding
  /// (holes stay open) and extruded: front faces at `z = extrusionDepth / 2` facing +z, back faces at
  /// `−extrusionDepth / 2`, and side walls. Units are metres: the font's size is the height of its em
  /// square. Lines break at newlines and, in a container with `.byWordWrapping` or `.byCharWrapping`,
  /// at the words that would cross its width; other modes cut glyphs crossing the container's right
  /// edge, and lines below its bottom are left out. The layout rectangle is `containerFrame`, or, when
  /// that is `.zero`, the rectangle from the origin up and right holding the lines (one line height,
  /// the font's, each); the first baseline lies one ascender below its top. No kerning. A font file
  /// that cannot be read gives an empty mesh.
  public static func generateText(
    _ string: String, extrusionDepth: Float = 0.25, font: Font = .systemFont(ofSize: 0.1),
    containerFrame: CGRect = .zero, alignment: CTTextAlignment = .left,
    lineBreakMode: CTLineBreakMode = .byTruncatingTail
  ) -> MeshResource {
    guard let face = GlyphFace(url: font.fileURL) else {
      return MeshResource(positions: [], triangleIndices: [])
    }
    let scale = Float(font.pointSize) / face.unitsPerEm
    let container = containerFrame.width > 0 && containerFrame.height > 0 ? containerFrame : nil
    let maxWidth = container.map { Float($0.width) / scale }
    let wraps = lineBreakMode == .byWordWrapping || lineBreakMode == .byCharWrapping
    // Lines of characters with their advances, in font units.
    var lines: [[(Character, Float)]] = []
    for paragraph in string.split(separator: "\n", omittingEmptySubsequences: false) {
      var line: [(Character, Float)] = []
      var width: Float = 0
      for word in paragraph.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
        var glyphs = word.offset > 0 ? [(Character(" "), face.advance(of: " "))] : []
        glyphs += word.element.map { ($0, face.advance(of: $0)) }
        let wordWidth = glyphs.reduce(0) { $0 + $1.1 }
        if wraps, let maxWidth, width + wordWidth > maxWidth, !line.isEmpty {
          lines.append(line)
          line = []
          width = 0
          if glyphs.first?.0 == " " { glyphs.removeFirst() }
        }
        line += glyphs
        width += glyphs.reduce(0) { $0 + $1.1 }
      }
      lines.append(line)
    }
    let widths = lines.map { $0.reduce(0) { $0 + $1.1 } }
    let lineHeight = face.lineHeight
    let layoutWidth = maxWidth ?? (widths.max() ?? 0)
    let top = container.map { Float($0.maxY) / scale } ?? Float(lines.count) * lineHeight
    let left = container.map { Float($0.minX) / scale } ?? 0
    let bottom = container.map { Float($0.minY) / scale } ?? -.infinity
    var mesh = ExtrudedMesh(halfDepth: Swift.max(0, extrusionDepth) / 2, scale: scale)
    for (row, line) in lines.enumerated() {
      let baseline = top - face.ascender - Float(row) * lineHeight
      if baseline + face.descender < bottom { break }
      let slack = layoutWidth - widths[row]
      var x: Float
      switch alignment {
      case .center: x = left + slack / 2
      case .right: x = left + slack
      default: x = left
      }
      for (character, advance) in line {
        if let maxWidth, !wraps, x + advance > left + maxWidth { break }
        for polygon in face.polygons(of: character) { mesh.add(polygon, offset: SIMD2(x, baseline)) }
        x += advance
      }
    }
    return mesh.resource()
  }
}

/// UIKit's font type where Linux has none: text-mesh code that names `UIFont` compiles unchanged. A
/// stand-in, not UIKit's class: a font file and a size (see ``MeshResource/Font``).
public typealias UIFont = MeshResource.Font

/// UIKit's font descriptor type where Linux has none (see ``MeshResource/Font/Descriptor``).
public typealias UIFontDescriptor = MeshResource.Font.Descriptor
