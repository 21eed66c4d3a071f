import Foundation

/// One row of cells of an outline: the first and last column of the outline's cells in row `y`.
struct CellRowSpan: Equatable {
  var y: Int64
  var first: Int64
  var last: Int64
}

extension SurfaceGrid {
  /// The rows of the outline's cells: the occupied cells (at least ``minimumHits``) in the 8-connected
  /// groups with at least a quarter of the largest group's cells (a wall on both sides of a door, not a
  /// few cells seen across a gap), each row as its first and last column (all a convex hull needs: a cell
  /// between them lies between them). Ascending `y`.
  ///
  /// The groups are labelled on a dense image of the box of the grid's cells (two passes with
  /// union-find), so the work is the box's area and no hash lookups; a box of more than
  /// ``maximumOutlineBox`` cells (a surface hundreds of metres long, which no room holds) takes every
  /// occupied cell as one group.
  func outlineRows() -> [CellRowSpan] {
    guard occupied > 0, low.x <= high.x else { return [] }
    let width = Int(high.x - low.x + 1)
    let height = Int(high.y - low.y + 1)
    guard width.multipliedReportingOverflow(by: height).partialValue <= Self.maximumOutlineBox,
      width <= Self.maximumOutlineBox, height <= Self.maximumOutlineBox
    else { return spans(of: { _ in true }, width: nil, height: nil, labels: []) }
    // Provisional labels (1-based) in row-major order; parent[l] is l's parent in the union-find.
    var labels = [Int32](repeating: 0, count: width * height)
    for (i, key) in keys.enumerated() where hits[i] >= minimumHits {
      let (x, y) = PlaneCells.components(key)
      labels[Int(y - low.y) * width + Int(x - low.x)] = -1
    }
    var parent: [Int32] = [0]
    func find(_ l: Int32) -> Int32 {
      var root = l
      while parent[Int(root)] != root { root = parent[Int(root)] }
      return root
    }
    for row in 0..<height {
      for column in 0..<width where labels[row * width + column] != 0 {
        // The neighbours already labelled: left, and the three above.
        var label: Int32 = 0
        func join(_ x: Int, _ y: Int) {
          guard x >= 0, x < width, y >= 0 else { return }
          let other = labels[y * width + x]
          guard other > 0 else { return }
          if label == 0 {
            label = find(other)
          } else {
            let (a, b) = (find(label), find(other))
            if a != b { parent[Int(max(a, b))] = min(a, b) }
            label = min(a, b)
          }
        }
        join(column - 1, row)
        join(column - 1, row - 1)
        join(column, row - 1)
        join(column + 1, row - 1)
        if label == 0 {
          label = Int32(parent.count)
          parent.append(label)
        }
        labels[row * width + column] = label
      }
    }
    var sizes = [Int](repeating: 0, count: parent.count)
    for i in labels.indices where labels[i] > 0 {
      labels[i] = find(labels[i])
      sizes[Int(labels[i])] += 1
    }
    let largest = sizes.max() ?? 0
    return spans(of: { 4 * sizes[Int($0)] >= largest }, width: width, height: height, labels: labels)
  }

  /// The first and last column per row of the occupied cells whose label passes `keep` (every occupied
  /// cell when `labels` is empty).
  private func spans(of keep: (Int32) -> Bool, width: Int?, height: Int?, labels: [Int32]) -> [CellRowSpan] {
    if let width, let height {
      var rows: [CellRowSpan] = []
      for row in 0..<height {
        var span: CellRowSpan?
        for column in 0..<width {
          let label = labels[row * width + column]
          guard label > 0, keep(label) else { continue }
          let x = low.x + Int64(column)
          if span == nil { span = CellRowSpan(y: low.y + Int64(row), first: x, last: x) }
          span?.last = x
        }
        if let span { rows.append(span) }
      }
      return rows
    }
    var rows: [Int64: CellRowSpan] = [:]
    for (i, key) in keys.enumerated() where hits[i] >= minimumHits {
      let (x, y) = PlaneCells.components(key)
      let span = rows[y] ?? CellRowSpan(y: y, first: x, last: x)
      rows[y] = CellRowSpan(y: y, first: min(span.first, x), last: max(span.last, x))
    }
    return rows.values.sorted { $0.y < $1.y }
  }

  /// The largest box (cells) ``outlineRows()`` labels densely.
  static let maximumOutlineBox = 1 << 24
}
