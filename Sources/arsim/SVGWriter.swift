import ARSimRun
import Foundation

/// A small SVG 1.1 document builder: elements are appended in drawing order (later ones on top);
/// coordinates are user units (pixels at 100% zoom), origin top-left, y down.
struct SVGDocument {
  /// Drawing attributes shared by the shape elements.
  struct Style {
    var fill: RenderColor? = nil
    var fillOpacity: Double = 1
    var stroke: RenderColor? = nil
    var strokeWidth: Double = 1
    /// Dash and gap lengths in user units; empty for a solid line.
    var dash: [Double] = []
    var opacity: Double = 1

    var attributes: String {
      var parts = ["fill=\"\(fill?.hex ?? "none")\""]
      if fill != nil, fillOpacity < 1 { parts.append("fill-opacity=\"\(SVGDocument.number(fillOpacity))\"") }
      if let stroke {
        parts.append("stroke=\"\(stroke.hex)\"")
        parts.append("stroke-width=\"\(SVGDocument.number(strokeWidth))\"")
        parts.append("stroke-linejoin=\"round\"")
        parts.append("stroke-linecap=\"round\"")
        if !dash.isEmpty {
          parts.append("stroke-dasharray=\"\(dash.map(SVGDocument.number).joined(separator: " "))\"")
        }
      }
      if opacity < 1 { parts.append("opacity=\"\(SVGDocument.number(opacity))\"") }
      return parts.joined(separator: " ")
    }
  }

  let width: Double
  let height: Double
  private(set) var body: [String] = []
  private var definitions: [String] = []
  private var openGroups = 0

  /// An empty document of `width` x `height` user units.
  init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  /// A number with at most two decimals and no trailing zeros (`12`, `3.5`, `-0.25`).
  static func number(_ x: Double) -> String {
    guard x.isFinite else { return "0" }
    var text = String(format: "%.2f", x)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
  }

  /// `text` with XML's special characters escaped, for text content and attribute values.
  static func escape(_ text: String) -> String {
    var out = ""
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default: out.append(character)
      }
    }
    return out
  }

  private static func points(_ points: [SIMD2<Double>]) -> String {
    points.map { number($0.x) + "," + number($0.y) }.joined(separator: " ")
  }

  /// Adds a rectangular clip path named `id`, for ``beginGroup(clipPath:)``.
  mutating func addClipRect(id: String, x: Double, y: Double, width: Double, height: Double) {
    definitions.append(
      "<clipPath id=\"\(SVGDocument.escape(id))\"><rect x=\"\(SVGDocument.number(x))\" y=\"\(SVGDocument.number(y))\" "
        + "width=\"\(SVGDocument.number(width))\" height=\"\(SVGDocument.number(height))\"/></clipPath>")
  }

  /// Opens a group; elements added until ``endGroup()`` belong to it.
  mutating func beginGroup(clipPath: String? = nil, comment: String? = nil) {
    if let comment { body.append("<!-- \(comment.replacingOccurrences(of: "--", with: "- -")) -->") }
    body.append(clipPath.map { "<g clip-path=\"url(#\(SVGDocument.escape($0)))\">" } ?? "<g>")
    openGroups += 1
  }

  /// Closes the innermost open group.
  mutating func endGroup() {
    guard openGroups > 0 else { return }
    body.append("</g>")
    openGroups -= 1
  }

  /// A closed polygon.
  mutating func polygon(_ points: [SIMD2<Double>], _ style: Style) {
    guard !points.isEmpty else { return }
    body.append("<polygon points=\"\(SVGDocument.points(points))\" \(style.attributes)/>")
  }

  /// An open polyline.
  mutating func polyline(_ points: [SIMD2<Double>], _ style: Style) {
    guard points.count >= 2 else { return }
    body.append("<polyline points=\"\(SVGDocument.points(points))\" \(style.attributes)/>")
  }

  /// A straight line.
  mutating func line(from a: SIMD2<Double>, to b: SIMD2<Double>, _ style: Style) {
    body.append(
      "<line x1=\"\(SVGDocument.number(a.x))\" y1=\"\(SVGDocument.number(a.y))\" x2=\"\(SVGDocument.number(b.x))\" "
        + "y2=\"\(SVGDocument.number(b.y))\" \(style.attributes)/>")
  }

  /// A rectangle.
  mutating func rect(x: Double, y: Double, width: Double, height: Double, _ style: Style) {
    body.append(
      "<rect x=\"\(SVGDocument.number(x))\" y=\"\(SVGDocument.number(y))\" width=\"\(SVGDocument.number(width))\" "
        + "height=\"\(SVGDocument.number(height))\" \(style.attributes)/>")
  }

  /// A circle.
  mutating func circle(at centre: SIMD2<Double>, radius: Double, _ style: Style) {
    body.append(
      "<circle cx=\"\(SVGDocument.number(centre.x))\" cy=\"\(SVGDocument.number(centre.y))\" "
        + "r=\"\(SVGDocument.number(radius))\" \(style.attributes)/>")
  }

  /// Text whose baseline starts at `origin` (or is centred on it with `anchor: "middle"`).
  mutating func text(
    _ text: String, at origin: SIMD2<Double>, size: Double = 12, color: RenderColor = RenderColor(0, 0, 0),
    anchor: String = "start", bold: Bool = false
  ) {
    body.append(
      "<text x=\"\(SVGDocument.number(origin.x))\" y=\"\(SVGDocument.number(origin.y))\" "
        + "font-family=\"sans-serif\" font-size=\"\(SVGDocument.number(size))\" fill=\"\(color.hex)\" "
        + "text-anchor=\"\(anchor)\"\(bold ? " font-weight=\"bold\"" : "")>\(SVGDocument.escape(text))</text>"
    )
  }

  /// The document's text: an XML declaration, the `svg` root with a white background, the
  /// definitions, the elements in order.
  var text: String {
    var lines = [
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(SVGDocument.number(width))\" "
        + "height=\"\(SVGDocument.number(height))\" viewBox=\"0 0 \(SVGDocument.number(width)) \(SVGDocument.number(height))\">",
      "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>",
    ]
    if !definitions.isEmpty { lines.append("<defs>" + definitions.joined() + "</defs>") }
    lines += body
    lines += Array(repeating: "</g>", count: openGroups)
    lines.append("</svg>")
    return lines.joined(separator: "\n") + "\n"
  }

  /// Writes the document to `path` atomically.
  func write(to path: String) throws {
    let file = try OutputFile(path: path)
    try file.write(String(text.dropLast()))
    try file.close()
  }
}
