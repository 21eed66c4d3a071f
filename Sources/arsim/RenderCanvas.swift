import ARSim

/// An 8-bit RGB colour for drawings, with its `#RRGGBB` form for SVG.
struct RenderColor: Equatable, Sendable {
  var red: UInt8
  var green: UInt8
  var blue: UInt8

  init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
    self.red = red
    self.green = green
    self.blue = blue
  }

  /// `#RRGGBB`, upper-case hexadecimal.
  var hex: String {
    let digits = Array("0123456789ABCDEF")
    return "#"
      + String([red, green, blue].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
  }

  /// `self` drawn with opacity `alpha` (0...1) over `background`, rounded to the nearest value.
  func blended(over background: RenderColor, alpha: Double) -> RenderColor {
    func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
      UInt8((alpha * Double(top) + (1 - alpha) * Double(bottom)).rounded().clamped(to: 0...255))
    }
    return RenderColor(mix(red, background.red), mix(green, background.green), mix(blue, background.blue))
  }
}

extension Comparable {
  /// `self` limited to `range`.
  func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}

/// Scanline coverage of polygons in pixel coordinates (integers at pixel centres, as the camera
/// intrinsics use them): a pixel belongs to a polygon when its centre is inside by the even-odd rule,
/// with left and top edges inclusive, so polygons that share an edge cover each pixel once.
enum Scanline {
  /// Calls `body(x, y)` for every pixel of a `width` x `height` image whose centre lies inside
  /// `polygon` (vertices in pixels, either winding, any coordinates: what lies outside the image is
  /// skipped without being visited).
  static func cover(
    _ polygon: [SIMD2<Double>], width: Int, height: Int, _ body: (_ x: Int, _ y: Int) -> Void
  ) {
    guard polygon.count >= 3, width > 0, height > 0,
      polygon.allSatisfy({ $0.x.isFinite && $0.y.isFinite })
    else { return }
    let lowY = polygon.map(\.y).min()!
    let highY = polygon.map(\.y).max()!
    let firstRow = max(0, Int(lowY.rounded(.up)))
    let lastRow = min(height - 1, Int(highY.rounded(.up)) - 1)
    guard firstRow <= lastRow else { return }
    var crossings: [Double] = []
    for row in firstRow...lastRow {
      let y = Double(row)
      crossings.removeAll(keepingCapacity: true)
      for i in polygon.indices {
        let a = polygon[i]
        let b = polygon[(i + 1) % polygon.count]
        // Half-open in y so that a vertex on the scanline is counted once.
        if (a.y <= y && y < b.y) || (b.y <= y && y < a.y) {
          crossings.append(a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y))
        }
      }
      crossings.sort()
      var k = 0
      while k + 1 < crossings.count {
        let first = max(0, Int(crossings[k].rounded(.up).clamped(to: -1...Double(width))))
        let last = min(width - 1, Int(crossings[k + 1].rounded(.up).clamped(to: -1...Double(width))) - 1)
        if first <= last {
          for column in first...last { body(column, row) }
        }
        k += 2
      }
    }
  }

  /// The part of the segment from `a` to `b` inside the rectangle `low...high` (Liang–Barsky), or
  /// nil when it misses the rectangle.
  static func clip(
    _ a: SIMD2<Double>, _ b: SIMD2<Double>, low: SIMD2<Double>, high: SIMD2<Double>
  ) -> (SIMD2<Double>, SIMD2<Double>)? {
    let d = b - a
    var t0 = 0.0
    var t1 = 1.0
    let tests: [(p: Double, q: Double)] = [
      (-d.x, a.x - low.x), (d.x, high.x - a.x), (-d.y, a.y - low.y), (d.y, high.y - a.y),
    ]
    for (p, q) in tests {
      if p == 0 {
        if q < 0 { return nil }
      } else {
        let t = q / p
        if p < 0 {
          if t > t1 { return nil }
          t0 = max(t0, t)
        } else {
          if t < t0 { return nil }
          t1 = min(t1, t)
        }
      }
    }
    return (a + t0 * d, a + t1 * d)
  }
}

/// An RGB image to draw on: blended fills, lines, dots and rectangles, clipped to the image.
/// Coordinates are pixels with integers at pixel centres, origin at the top-left corner.
struct Canvas {
  private(set) var image: RGBImage

  /// A canvas over `image` (copied).
  init(_ image: RGBImage) { self.image = image }

  /// A canvas over a captured frame, grey frames replicated into the three channels.
  init(_ captured: CapturedImage) {
    switch captured {
    case .rgb(let rgb): image = rgb
    case .gray(let gray):
      image = RGBImage(width: gray.width, height: gray.height, pixels: gray.pixels.flatMap { [$0, $0, $0] })
    }
  }

  var width: Int { image.width }
  var height: Int { image.height }

  /// The colour of pixel `(x, y)`, which must lie inside the image.
  subscript(x: Int, y: Int) -> RenderColor {
    get {
      let i = 3 * (y * image.width + x)
      return RenderColor(image.pixels[i], image.pixels[i + 1], image.pixels[i + 2])
    }
    set {
      let i = 3 * (y * image.width + x)
      image.pixels[i] = newValue.red
      image.pixels[i + 1] = newValue.green
      image.pixels[i + 2] = newValue.blue
    }
  }

  /// Paints pixel `(x, y)` with `color` at opacity `alpha`; pixels outside the image are ignored.
  mutating func blend(x: Int, y: Int, _ color: RenderColor, alpha: Double = 1) {
    guard x >= 0, y >= 0, x < width, y < height else { return }
    self[x, y] = alpha >= 1 ? color : color.blended(over: self[x, y], alpha: alpha)
  }

  /// Fills `polygon` (pixels) with `color` at opacity `alpha`.
  mutating func fill(_ polygon: [SIMD2<Double>], _ color: RenderColor, alpha: Double) {
    Scanline.cover(polygon, width: width, height: height) { x, y in
      self.blend(x: x, y: y, color, alpha: alpha)
    }
  }

  /// Fills the axis-aligned rectangle of pixels `x..<x+w`, `y..<y+h`.
  mutating func fillRect(x: Int, y: Int, width w: Int, height h: Int, _ color: RenderColor, alpha: Double = 1)
  {
    let left = max(0, x)
    let top = max(0, y)
    let columns = left..<max(left, min(width, x + w))
    for row in top..<max(top, min(height, y + h)) {
      for column in columns { blend(x: column, y: row, color, alpha: alpha) }
    }
  }

  /// Draws a straight line from `a` to `b` (pixels), `thickness` pixels wide, clipped to the image;
  /// only the pixels for which `visible(x, y)` holds are painted.
  mutating func line(
    from a: SIMD2<Double>, to b: SIMD2<Double>, _ color: RenderColor, thickness: Int = 1,
    where visible: (_ x: Int, _ y: Int) -> Bool = { _, _ in true }
  ) {
    let margin = Double(thickness)
    guard
      let (p, q) = Scanline.clip(
        a, b, low: SIMD2(-margin, -margin), high: SIMD2(Double(width) + margin, Double(height) + margin))
    else { return }
    let steps = max(1, Int(max(abs(q.x - p.x), abs(q.y - p.y)).rounded(.up)))
    let low = -(thickness - 1) / 2
    let high = low + thickness - 1
    for k in 0...steps {
      let t = Double(k) / Double(steps)
      let x = Int((p.x + t * (q.x - p.x)).rounded())
      let y = Int((p.y + t * (q.y - p.y)).rounded())
      for dy in low...high {
        for dx in low...high where visible(x + dx, y + dy) { blend(x: x + dx, y: y + dy, color) }
      }
    }
  }

  /// Draws a filled square dot of side `size` pixels centred on `point`, with a one-pixel dark rim
  /// when `rim` is set.
  mutating func dot(at point: SIMD2<Double>, _ color: RenderColor, size: Int = 3, rim: Bool = false) {
    guard point.x.isFinite, point.y.isFinite, abs(point.x) < 1e6, abs(point.y) < 1e6 else { return }
    let x = Int(point.x.rounded()) - size / 2
    let y = Int(point.y.rounded()) - size / 2
    if rim {
      fillRect(x: x - 1, y: y - 1, width: size + 2, height: size + 2, RenderColor(0, 0, 0), alpha: 0.6)
    }
    fillRect(x: x, y: y, width: size, height: size, color)
  }
}
