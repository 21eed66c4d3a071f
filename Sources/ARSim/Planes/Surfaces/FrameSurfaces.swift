import Foundation

/// One planar surface that one frame's depth map shows, in world coordinates.
package struct FrameSurface {
  /// Horizontal or vertical (the alignment of its normal).
  package var alignment: ARPlaneAnchor.Alignment
  /// A horizontal surface seen from above (its normal up: a floor or a table top) rather than from
  /// below (a ceiling). True for vertical surfaces.
  package var facesUp: Bool
  /// The gravity-aligned least-squares plane of ``moments``, its normal towards the camera.
  package var plane: Plane
  /// The moments of the depth points the surface holds (world, metres).
  package var moments: PlaneMoments
  /// Its footprint: depth points (world) within the depth's noise of ``plane``, projected onto it.
  package var points: [SIMD3<Double>]
  /// The depth noise at the surface's mean depth (σ of ``PlaneDetectionOptions/DepthSurfaces``),
  /// metres.
  package var noise: Double
}

/// The planar surfaces of one depth map (CAPE's idea, Proença and Gao 2018): the map is cut into square
/// cells; a cell whose depth points lie on a plane, within the depth's noise, is a planar patch; patches
/// that are neighbours in the image, turned alike and on one plane grow into a surface. Depth edges,
/// curved and cluttered regions fail the planarity test, so a surface never runs across a gap or past
/// an edge in the image; grazing and far depth is left out. Work is linear in the depth map's pixels.
package struct FrameSurfaceExtractor {
  package let options: PlaneDetectionOptions.DepthSurfaces
  package let alignments: ARPlaneDetection

  /// An extractor of the surfaces of the given alignments.
  package init(options: PlaneDetectionOptions.DepthSurfaces, alignments: ARPlaneDetection) {
    self.options = options.sanitised
    self.alignments = alignments
  }

  /// One cell's planar patch, in world coordinates.
  private struct Patch {
    /// The class of its normal: 0 up, 1 down, 2 horizontal (a vertical surface); −1 none.
    var kind: Int8 = -1
    var moments = PlaneMoments()
    var normal = SIMD3<Double>.zero
    var centre = SIMD3<Double>.zero
    var rms = Double.infinity
    var noise = 0.0
  }

  /// The surfaces of `depth` (metres, NaN where unknown), seen with `intrinsics` (scaled to the depth
  /// map's size when they differ) from `worldFromCamera` (ARKit's camera frame to world), in the order
  /// of their seeds (the flattest cells first).
  package func surfaces(depth: DepthImage, intrinsics: CameraIntrinsics, worldFromCamera: RigidTransform)
    -> [FrameSurface]
  {
    guard depth.width >= 8, depth.height >= 8 else { return [] }
    let k = intrinsics.scaled(toWidth: depth.width, height: depth.height)
    guard k.fx.isFinite, k.fy.isFinite, k.fx > 0, k.fy > 0, k.cx.isFinite, k.cy.isFinite else { return [] }
    let cell = max(4, Int((Double(depth.width) / Double(options.cellsPerRow)).rounded()))
    let columns = depth.width / cell
    let rows = depth.height / cell
    guard columns > 0, rows > 0 else { return [] }
    let patches = fitPatches(
      depth: depth, k: k, cell: cell, columns: columns, rows: rows, pose: worldFromCamera)
    return grow(patches, columns: columns, rows: rows, cell: cell, k: k, pose: worldFromCamera, depth: depth)
  }

  /// Fits a plane to each cell and keeps the planar ones, classed by the direction of their normal.
  private func fitPatches(
    depth: DepthImage, k: CameraIntrinsics, cell: Int, columns: Int, rows: Int, pose: RigidTransform
  ) -> [Patch] {
    let stride = max(1, cell / options.samplesPerCellSide)
    let rotation = simd_double3x3(pose.rotation)
    let cosView = cos(options.maximumViewAngleDegrees * .pi / 180)
    let cosCell = cos(options.cellAlignmentToleranceDegrees * .pi / 180)
    let sinCell = sin(options.cellAlignmentToleranceDegrees * .pi / 180)
    let maximumDepth = Float(options.maximumDepth)
    // Each column's and row's ray component, (u − cx)/fx and (v − cy)/fy.
    let rayX = (0..<depth.width).map { (Double($0) - k.cx) / k.fx }
    let rayY = (0..<depth.height).map { (Double($0) - k.cy) / k.fy }
    var patches = [Patch](repeating: Patch(), count: columns * rows)
    depth.metres.withUnsafeBufferPointer { metres in
      for r in 0..<rows {
        for c in 0..<columns {
          // The cell's points in ARKit's camera frame (x right, y up, z backwards).
          // PlaneMoments.add's arithmetic, in this loop.
          var (count, sum, outer) = (0, SIMD3<Double>.zero, simd_double3x3())
          var samples = 0
          for v in Swift.stride(from: r * cell + stride / 2, to: (r + 1) * cell, by: stride) {
            let row = v * depth.width
            for u in Swift.stride(from: c * cell + stride / 2, to: (c + 1) * cell, by: stride) {
              samples += 1
              let z = metres[row + u]
              guard z.isFinite, z > 0, z <= maximumDepth else { continue }
              let d = Double(z)
              let point = SIMD3(rayX[u] * d, -rayY[v] * d, -d)
              count += 1
              sum += point
              outer.columns.0 += point * point.x
              outer.columns.1 += point * point.y
              outer.columns.2 += point * point.z
            }
          }
          let moments = PlaneMoments(count: count, sum: sum, sumOfOuterProducts: outer)
          guard Double(moments.count) >= options.minimumValidShare * Double(samples), moments.count >= 4,
            let mean = moments.mean, let covariance = moments.covariance
          else { continue }
          let (values, vector) = smallestSymmetricEigenpair(covariance)
          // A patch, not a line of points: the middle spread well above the spread off the plane.
          guard values.y > 9 * max(values.x, 0), values.y > 0, var normal = vector else { continue }
          let noise = options.noise(atDepth: -mean.z)
          let rms = max(values.x, 0).squareRoot()
          guard rms <= options.planarityMultiple * noise else { continue }
          if simd_dot(normal, mean) > 0 { normal = -normal }
          guard -simd_dot(normal, simd_normalize(mean)) >= cosView else { continue }
          let worldNormal = rotation * normal
          let kind: Int8
          if worldNormal.y >= cosCell {
            kind = alignments.contains(.horizontal) ? 0 : -1
          } else if worldNormal.y <= -cosCell {
            kind = alignments.contains(.horizontal) ? 1 : -1
          } else if worldNormal.y.magnitude <= sinCell {
            kind = alignments.contains(.vertical) ? 2 : -1
          } else {
            kind = -1
          }
          guard kind >= 0 else { continue }
          patches[r * columns + c] = Patch(
            kind: kind, moments: moments, normal: worldNormal, centre: pose.apply(to: mean), rms: rms,
            noise: noise)
        }
      }
    }
    return patches
  }

  /// Grows surfaces over neighbouring patches from the flattest ones, and keeps those large and aligned
  /// enough.
  private func grow(
    _ patches: [Patch], columns: Int, rows: Int, cell: Int, k: CameraIntrinsics, pose: RigidTransform,
    depth: DepthImage
  ) -> [FrameSurface] {
    let seeds = patches.indices.filter { patches[$0].kind >= 0 }.sorted {
      (patches[$0].rms, $0) < (patches[$1].rms, $1)
    }
    var taken = [Bool](repeating: false, count: patches.count)
    let cosGrow = cos(options.growAngleDegrees * .pi / 180)
    var surfaces: [FrameSurface] = []
    var queue: [Int] = []
    var members: [Int] = []
    for seed in seeds where !taken[seed] {
      let kind = patches[seed].kind
      taken[seed] = true
      var moments = patches[seed].moments
      var normal = patches[seed].normal
      var centre = patches[seed].centre
      var refitAt = 4
      queue = [seed]
      members = []
      var head = 0
      while head < queue.count {
        let p = queue[head]
        head += 1
        members.append(p)
        if members.count == refitAt {
          refitAt *= 2
          if let plane = moments.transformed(by: pose).plane, let mean = moments.mean {
            normal = simd_dot(plane.normal, normal) >= 0 ? plane.normal : -plane.normal
            centre = pose.apply(to: mean)
          }
        }
        let (r, c) = p.quotientAndRemainder(dividingBy: columns)
        for (dr, dc) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
          let (nr, nc) = (r + dr, c + dc)
          guard nr >= 0, nr < rows, nc >= 0, nc < columns else { continue }
          let q = nr * columns + nc
          let candidate = patches[q]
          guard !taken[q], candidate.kind == kind, simd_dot(candidate.normal, normal) >= cosGrow else {
            continue
          }
          let distance = simd_dot(candidate.centre - centre, normal).magnitude
          guard distance <= max(options.minimumGrowDistance, options.growDistanceMultiple * candidate.noise)
          else { continue }
          taken[q] = true
          moments += candidate.moments
          queue.append(q)
        }
      }
      // A region too small or not planar as a whole keeps its cells: they are not offered to a later,
      // rougher seed.
      if let surface = surface(
        of: members, moments: moments, kind: kind, columns: columns, cell: cell, k: k, pose: pose,
        depth: depth)
      {
        surfaces.append(surface)
      }
    }
    return surfaces
  }

  /// The surface of a grown region, or nil when it is too small, not aligned or not planar as a whole.
  private func surface(
    of members: [Int], moments cameraMoments: PlaneMoments, kind: Int8, columns: Int, cell: Int,
    k: CameraIntrinsics, pose: RigidTransform, depth: DepthImage
  ) -> FrameSurface? {
    guard members.count >= options.minimumSurfaceCells else { return nil }
    // A strip one cell wide is the seam of a step (a door's edge, a shelf's lip) fitted as a slanted
    // plane, not a surface.
    let cellColumns = Set(members.map { $0 % columns })
    let cellRows = Set(members.map { $0 / columns })
    guard cellColumns.count >= 2, cellRows.count >= 2 else { return nil }
    let moments = cameraMoments.transformed(by: pose)
    guard let free = moments.planeFit, let mean = moments.mean, let cameraMean = cameraMoments.mean else {
      return nil
    }
    let noise = options.noise(atDepth: -cameraMean.z)
    guard free.meanSquaredDistance.squareRoot() <= options.planarityMultiple * noise else { return nil }
    let alignment: ARPlaneAnchor.Alignment = kind == 2 ? .vertical : .horizontal
    let tolerance = options.surfaceAlignmentToleranceDegrees * .pi / 180
    let upComponent = free.plane.normal.y.magnitude
    switch alignment {
    case .horizontal: guard upComponent >= cos(tolerance) else { return nil }
    case .vertical: guard upComponent <= sin(tolerance) else { return nil }
    }
    let towardsCamera = pose.translation - mean
    guard var plane = GravityAlignedPlane.fit(moments, alignment: alignment, reference: towardsCamera) else {
      return nil
    }
    if alignment == .horizontal && kind == 1 { plane = plane.flipped }
    // The surface's depth points that lie on its plane (within 2σ, at least a centimetre), every
    // other sample of each cell: its footprint. A cell at the surface's edge may hold a little of
    // what lies beyond; those points are off the plane and mark nothing.
    let band = max(0.01, 2 * noise)
    let stride = 2 * max(1, cell / options.samplesPerCellSide)
    let rotation = simd_double3x3(pose.rotation)
    let maximumDepth = Float(options.maximumDepth)
    var points: [SIMD3<Double>] = []
    points.reserveCapacity(members.count * (cell / stride + 1) * (cell / stride + 1))
    depth.metres.withUnsafeBufferPointer { metres in
      for p in members {
        let (r, c) = p.quotientAndRemainder(dividingBy: columns)
        for v in Swift.stride(from: r * cell + stride / 2, to: (r + 1) * cell, by: stride) {
          for u in Swift.stride(from: c * cell + stride / 2, to: (c + 1) * cell, by: stride) {
            let z = metres[v * depth.width + u]
            guard z.isFinite, z > 0, z <= maximumDepth else { continue }
            let d = Double(z)
            let camera = SIMD3((Double(u) - k.cx) / k.fx * d, -(Double(v) - k.cy) / k.fy * d, -d)
            let world = rotation * camera + pose.translation
            if plane.signedDistance(to: world).magnitude <= band { points.append(plane.project(world)) }
          }
        }
      }
    }
    guard !points.isEmpty else { return nil }
    return FrameSurface(
      alignment: alignment, facesUp: kind != 1, plane: plane, moments: moments, points: points, noise: noise)
  }
}
