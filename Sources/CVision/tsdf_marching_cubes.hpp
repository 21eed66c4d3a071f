// Marching cubes for the TSDF volume (tsdf.cpp): the triangulation of each of the 256 sign patterns
// of a cube's corners, built once from a face rule instead of a transcribed table.
//
// On each face of the cube the zero crossings are joined by segments; where a face's four corners
// alternate in sign (the ambiguous case) each segment cuts off a negative corner, so the two cubes
// that share the face join their crossings the same way and the surface has no cracks. The segments
// of the six faces close into loops (every crossed edge lies on two faces), each loop is oriented so
// that its normal points from the negative (behind the surface) to the positive (free space) side,
// and triangulated as a fan.
//
// Corner c of a cube is at offset (c & 1, (c >> 1) & 1, (c >> 2) & 1). Edge e = 4 * axis + k joins
// the k-th corner (in increasing order) whose `axis` bit is 0 to that corner plus the axis.

#ifndef ARSIM_CVISION_TSDF_MARCHING_CUBES_HPP
#define ARSIM_CVISION_TSDF_MARCHING_CUBES_HPP

#include <array>
#include <cstdint>

namespace cvision::tsdf {

/// The most triangles one sign pattern gives (a loop through all 12 edges would give 10).
constexpr int kMaxCubeTriangles = 10;

/// The triangles of one sign pattern: triangles of edge indices, counter-clockwise seen from the
/// positive side.
struct CubeCase {
  int8_t triangle_count = 0;
  std::array<std::array<int8_t, 3>, kMaxCubeTriangles> triangles{};
};

/// The corners an edge joins (lower corner first) and its axis.
struct CubeEdge {
  int8_t from;
  int8_t to;
  int8_t axis;
};

/// The 12 edges of a cube.
const std::array<CubeEdge, 12> &cube_edges();

/// The 256 cases, indexed by the pattern whose bit c is set when corner c is negative.
const std::array<CubeCase, 256> &cube_cases();

}  // namespace cvision::tsdf

#endif  // ARSIM_CVISION_TSDF_MARCHING_CUBES_HPP
