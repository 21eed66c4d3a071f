import ARSim
import ARSimEval
import ARSimRun
import Foundation

/// The top-down SVG of `arsim render` (`trajectory.svg`): the estimated trajectory beside the ground
/// truth, the detected planes' final polygons and the ground-truth planes, seen from above.
///
/// With ground truth for at least three tracked frames the plot is in the ground-truth world: the
/// estimate (and its planes) are mapped into it by the SE(3) Umeyama alignment over the tracked frames
/// (Sim(3) for monocular tracking), as `arsim eval` aligns them. Otherwise it shows the session world.
/// "Above" is against gravity (the recording's ground-truth gravity, or the session's +y); the page's
/// right is the world's x axis made horizontal and the page's down is the world's z axis for a world
/// whose +y is up, so the picture is the x-z plane seen from +y, not mirrored.
struct TopDownPlot {
  /// A ground-truth plane (`planes.json`): its outline in the ground-truth world (metres) and label.
  struct GroundTruthOutline {
    var polygon: [SIMD3<Double>]
    var label: String
  }

  /// A detected plane: its boundary in the session world (metres) and classification.
  struct PlaneOutline {
    var polygon: [SIMD3<Double>]
    var classification: String
    var isVertical: Bool
  }

  var title: String
  var frames: [ReplayRun.FrameRecord]
  var planes: [PlaneOutline]
  var groundTruthPlanes: [GroundTruthOutline] = []
  /// Gravity's direction in the ground-truth world, when the recording states it.
  var groundTruthGravity: SIMD3<Double>?
  /// Align by Sim(3) (monocular tracking) instead of SE(3).
  var withScale = false

  /// The final plane anchors of a session as outlines in the session world.
  static func outlines(of anchors: [ARAnchor]) -> [PlaneOutline] {
    anchors.compactMap { $0 as? ARPlaneAnchor }.map { plane in
      let worldFromAnchor = RigidTransform(matrix: plane.transform)
      return PlaneOutline(
        polygon: plane.geometry.boundaryVertices.map { worldFromAnchor.apply(to: SIMD3<Double>($0)) },
        classification: "\(plane.classification)", isVertical: plane.alignment == .vertical)
    }
  }

  /// The plot as an SVG document, with a one-line summary of the alignment for the command's output.
  func document() throws -> (svg: SVGDocument, summary: String) {
    let tracked = frames.filter(\.isTracked)
    let pairs = tracked.filter { $0.groundTruth != nil }
    var toPlot = Similarity.identity
    var ate: AbsoluteTrajectoryError?
    if pairs.count >= 3 {
      let reference = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map { $0.groundTruth! })
      let estimate = Trajectory(timestamps: pairs.map(\.timestamp), poses: pairs.map(\.worldFromOptical))
      let result = try absoluteTrajectoryError(
        reference: reference, estimate: estimate,
        options: AbsoluteErrorOptions(alignment: withScale ? .sim3 : .se3))
      toPlot = result.alignment
      ate = result
    }
    let aligned = ate != nil
    let up: SIMD3<Double> =
      if aligned, let gravity = groundTruthGravity, simd_length(gravity) > 0 {
        -simd_normalize(gravity)
      } else {
        simd_normalize(toPlot.rotation.act(SIMD3(0, 1, 0)))
      }
    // Page axes: right is the world x made horizontal (z when x is vertical), down is right × up.
    var right = SIMD3<Double>(1, 0, 0) - up.x * up
    if simd_length(right) < 0.1 { right = SIMD3<Double>(0, 0, 1) - up.z * up }
    right = simd_normalize(right)
    let down = simd_cross(right, up)
    let flat = { (p: SIMD3<Double>) in SIMD2(simd_dot(p, right), simd_dot(p, down)) }
    let height = { (p: SIMD3<Double>) in simd_dot(p, up) }

    // Everything in the plot world (metres).
    let truthPath = aligned ? frames.compactMap { $0.groundTruth?.translation } : []
    var estimateRuns: [[SIMD3<Double>]] = []
    var previousTracked = false
    for frame in frames {
      if frame.isTracked {
        let p = toPlot.apply(to: frame.worldFromOptical.translation)
        if previousTracked {
          estimateRuns[estimateRuns.count - 1].append(p)
        } else {
          estimateRuns.append([p])
        }
      }
      previousTracked = frame.isTracked
    }
    let detected = planes.map { plane in
      (polygon: plane.polygon.map { toPlot.apply(to: $0) }, plane.classification, plane.isVertical)
    }
    let truthPlanes = aligned ? groundTruthPlanes : []

    // Bounds: the trajectories with room around them, and the planes within reach of them.
    let pathPoints = (truthPath + estimateRuns.flatMap { $0 }).map(flat)
    let planePoints = (detected.flatMap(\.polygon) + truthPlanes.flatMap(\.polygon)).map(flat)
    var box = Box(pathPoints.isEmpty ? planePoints : pathPoints)
    let reach = max(1.5, 0.5 * max(box.size.x, box.size.y))
    let limit = box.expanded(by: reach)
    for p in planePoints { box.include(p.clamped(lowerBound: limit.low, upperBound: limit.high)) }
    if box.isEmpty { box = Box([SIMD2(-1, -1), SIMD2(1, 1)]) }
    box = box.expanded(by: max(0.1, 0.04 * max(box.size.x, box.size.y)))
    let minimum = 1.0
    if box.size.x < minimum { box = box.widened(x: (minimum - box.size.x) / 2, y: 0) }
    if box.size.y < minimum { box = box.widened(x: 0, y: (minimum - box.size.y) / 2) }

    // Page layout (user units): title band, plot, scale bar band; legend on the right.
    let pixelsPerMetre = 640 / max(box.size.x, box.size.y)
    let plotOrigin = SIMD2<Double>(20, 50)
    let plotSize = box.size * pixelsPerMetre
    let legendX = plotOrigin.x + plotSize.x + 24
    var svg = SVGDocument(width: legendX + 250, height: max(plotOrigin.y + plotSize.y + 60, 420))
    let page = { (p: SIMD2<Double>) in plotOrigin + (p - box.low) * pixelsPerMetre }
    let toPage = { (p: SIMD3<Double>) in page(flat(p)) }

    svg.text(title, at: SIMD2(plotOrigin.x, 22), size: 16, bold: true)
    let subtitle =
      aligned
      ? "seen from above, ground-truth world; estimate aligned by \(withScale ? "Sim(3)" : "SE(3)") Umeyama"
        + " over \(pairs.count) tracked frames"
      : "seen from above, session world (no ground truth to align with)"
    svg.text(subtitle, at: SIMD2(plotOrigin.x, 40), size: 11, color: RenderColor(97, 97, 97))
    svg.addClipRect(id: "plot", x: plotOrigin.x, y: plotOrigin.y, width: plotSize.x, height: plotSize.y)
    svg.rect(
      x: plotOrigin.x, y: plotOrigin.y, width: plotSize.x, height: plotSize.y,
      SVGDocument.Style(fill: RenderColor(250, 250, 250), stroke: RenderColor(189, 189, 189)))

    // Grid at the scale bar's step.
    let step = Self.niceLength(max(box.size.x, box.size.y) / 5)
    svg.beginGroup(clipPath: "plot", comment: "grid, \(SVGDocument.number(step)) m")
    let grid = SVGDocument.Style(stroke: RenderColor(230, 230, 230), strokeWidth: 1)
    var gx = (box.low.x / step).rounded(.up) * step
    while gx <= box.high.x {
      svg.line(from: page(SIMD2(gx, box.low.y)), to: page(SIMD2(gx, box.high.y)), grid)
      gx += step
    }
    var gy = (box.low.y / step).rounded(.up) * step
    while gy <= box.high.y {
      svg.line(from: page(SIMD2(box.low.x, gy)), to: page(SIMD2(box.high.x, gy)), grid)
      gy += step
    }
    svg.endGroup()

    // Detected planes: ceilings first, then from the lowest up, so that what is higher lies on top.
    svg.beginGroup(clipPath: "plot", comment: "detected planes (final polygons)")
    let order = detected.indices.sorted { a, b in
      let ceilingA = detected[a].1 == "ceiling"
      let ceilingB = detected[b].1 == "ceiling"
      if ceilingA != ceilingB { return ceilingA }
      let ha = detected[a].polygon.map(height).reduce(0, +) / Double(max(1, detected[a].polygon.count))
      let hb = detected[b].polygon.map(height).reduce(0, +) / Double(max(1, detected[b].polygon.count))
      return ha < hb
    }
    for i in order {
      let (polygon, classification, isVertical) = detected[i]
      let color = RenderPalette.color(named: classification)
      let style =
        isVertical
        ? SVGDocument.Style(fill: color, fillOpacity: 0.6, stroke: color, strokeWidth: 3)
        : SVGDocument.Style(fill: color, fillOpacity: 0.3, stroke: color, strokeWidth: 1.5)
      svg.polygon(polygon.map(toPage), style)
    }
    svg.endGroup()

    svg.beginGroup(clipPath: "plot", comment: "ground-truth planes (planes.json)")
    for plane in truthPlanes {
      svg.polygon(
        plane.polygon.map(toPage),
        SVGDocument.Style(
          stroke: RenderColor(0, 0, 0).blended(over: RenderPalette.color(named: plane.label), alpha: 0.45),
          strokeWidth: 1.5, dash: [6, 4]))
    }
    svg.endGroup()

    svg.beginGroup(clipPath: "plot", comment: "trajectories")
    let truthStyle = SVGDocument.Style(stroke: RenderPalette.groundTruth, strokeWidth: 5, opacity: 0.45)
    let estimateStyle = SVGDocument.Style(stroke: RenderPalette.estimate, strokeWidth: 1.5)
    svg.polyline(truthPath.map(toPage), truthStyle)
    for run in estimateRuns { svg.polyline(run.map(toPage), estimateStyle) }
    if let first = truthPath.first {
      svg.circle(at: toPage(first), radius: 5, SVGDocument.Style(fill: RenderPalette.groundTruth))
    }
    if let first = estimateRuns.first?.first {
      svg.circle(
        at: toPage(first), radius: 3.5,
        SVGDocument.Style(fill: RenderColor(255, 255, 255), stroke: RenderPalette.estimate, strokeWidth: 1.5))
    }
    if let last = estimateRuns.last?.last {
      let p = toPage(last)
      svg.rect(
        x: p.x - 3.5, y: p.y - 3.5, width: 7, height: 7, SVGDocument.Style(fill: RenderPalette.estimate))
    }
    svg.endGroup()

    // Scale bar under the plot.
    let barY = plotOrigin.y + plotSize.y + 24
    let barLength = step * pixelsPerMetre
    let barStyle = SVGDocument.Style(stroke: RenderColor(0, 0, 0), strokeWidth: 2)
    svg.line(from: SIMD2(plotOrigin.x, barY), to: SIMD2(plotOrigin.x + barLength, barY), barStyle)
    svg.line(from: SIMD2(plotOrigin.x, barY - 5), to: SIMD2(plotOrigin.x, barY + 5), barStyle)
    svg.line(
      from: SIMD2(plotOrigin.x + barLength, barY - 5), to: SIMD2(plotOrigin.x + barLength, barY + 5), barStyle
    )
    svg.text(
      "\(SVGDocument.number(step)) m", at: SIMD2(plotOrigin.x + barLength + 8, barY + 4), size: 12)
    svg.text(
      "grid \(SVGDocument.number(step)) m; x to the right, z down (from above)",
      at: SIMD2(plotOrigin.x + barLength + 60, barY + 4), size: 10, color: RenderColor(117, 117, 117))

    // Legend.
    var y = plotOrigin.y + 10
    func entry(_ label: String, draw: (inout SVGDocument, SIMD2<Double>) -> Void) {
      draw(&svg, SIMD2(legendX, y))
      svg.text(label, at: SIMD2(legendX + 34, y + 4), size: 12)
      y += 20
    }
    svg.text("legend", at: SIMD2(legendX, y), size: 13, bold: true)
    y += 20
    if aligned {
      entry("ground truth") { $0.line(from: $1, to: $1 + SIMD2(26, 0), truthStyle) }
    }
    entry(aligned ? "estimate (aligned)" : "estimate") {
      $0.line(from: $1, to: $1 + SIMD2(26, 0), estimateStyle)
    }
    entry("start (o) and end (square)") {
      $0.circle(
        at: $1 + SIMD2(6, 0), radius: 3.5,
        SVGDocument.Style(fill: RenderColor(255, 255, 255), stroke: RenderPalette.estimate, strokeWidth: 1.5))
      $0.rect(
        x: $1.x + 16, y: $1.y - 3.5, width: 7, height: 7, SVGDocument.Style(fill: RenderPalette.estimate))
    }
    y += 6
    svg.text("detected planes", at: SIMD2(legendX, y), size: 12, bold: true)
    y += 18
    for (name, color) in RenderPalette.classes {
      entry(name) {
        $0.rect(
          x: $1.x, y: $1.y - 7, width: 26, height: 14,
          SVGDocument.Style(fill: color, fillOpacity: 0.3, stroke: color, strokeWidth: 1.5))
      }
    }
    if !truthPlanes.isEmpty {
      entry("ground-truth plane") {
        $0.line(
          from: $1, to: $1 + SIMD2(26, 0),
          SVGDocument.Style(stroke: RenderColor(97, 97, 97), strokeWidth: 1.5, dash: [6, 4]))
      }
    }
    y += 6
    var summary = "trajectory: \(tracked.count) of \(frames.count) frames tracked"
    if let ate {
      let text = String(
        format: "ATE rmse %.3f m (max %.3f m)", ate.statistics.rmse, ate.statistics.max)
      svg.text(text, at: SIMD2(legendX, y), size: 12)
      y += 18
      summary += ", " + text + (withScale ? String(format: ", Sim(3) scale %.3f", ate.alignment.scale) : "")
    }
    svg.text(
      "\(tracked.count) of \(frames.count) frames tracked", at: SIMD2(legendX, y), size: 12)
    return (svg, summary)
  }

  /// 1, 2 or 5 times a power of ten, the nearest at or below `length` (for scale bars and grids).
  static func niceLength(_ length: Double) -> Double {
    guard length.isFinite, length > 0 else { return 1 }
    let power = pow(10, (log10(length)).rounded(.down))
    for factor in [5.0, 2, 1] where factor * power <= length { return factor * power }
    return power
  }
}

/// An axis-aligned box in the plane, empty until a point is included.
struct Box {
  var low = SIMD2<Double>(repeating: .infinity)
  var high = SIMD2<Double>(repeating: -.infinity)

  init(_ points: [SIMD2<Double>]) {
    for p in points { include(p) }
  }

  var isEmpty: Bool { !(low.x <= high.x && low.y <= high.y) }
  var size: SIMD2<Double> { isEmpty ? .zero : high - low }

  mutating func include(_ p: SIMD2<Double>) {
    guard p.x.isFinite, p.y.isFinite else { return }
    low = pointwiseMin(low, p)
    high = pointwiseMax(high, p)
  }

  func expanded(by margin: Double) -> Box { widened(x: margin, y: margin) }

  func widened(x: Double, y: Double) -> Box {
    guard !isEmpty else { return self }
    var box = self
    box.low -= SIMD2(x, y)
    box.high += SIMD2(x, y)
    return box
  }
}
