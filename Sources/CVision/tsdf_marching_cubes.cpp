// The marching cubes cases (tsdf_marching_cubes.hpp), built from the face rule on first use.

#include "tsdf_marching_cubes.hpp"

#include <algorithm>
#include <vector>

namespace cvision::tsdf {
namespace {

std::array<double, 3> corner_position(int corner) {
  return {double(corner & 1), double((corner >> 1) & 1), double((corner >> 2) & 1)};
}

std::array<CubeEdge, 12> make_edges() {
  std::array<CubeEdge, 12> edges{};
  for (int axis = 0; axis < 3; ++axis) {
    int k = 0;
    for (int corner = 0; corner < 8; ++corner) {
      if ((corner >> axis) & 1) continue;
      edges[axis * 4 + k] = CubeEdge{int8_t(corner), int8_t(corner | (1 << axis)), int8_t(axis)};
      ++k;
    }
  }
  return edges;
}

int edge_between(const std::array<CubeEdge, 12> &edges, int a, int b) {
  for (int e = 0; e < 12; ++e) {
    if ((edges[e].from == a && edges[e].to == b) || (edges[e].from == b && edges[e].to == a)) return e;
  }
  return -1;
}

CubeCase make_case(int pattern, const std::array<CubeEdge, 12> &edges) {
  auto negative = [pattern](int corner) { return ((pattern >> corner) & 1) != 0; };
  // Segments on the six faces, as pairs of crossed edges.
  std::array<std::vector<int>, 12> neighbours;
  for (int axis = 0; axis < 3; ++axis) {
    int u = (axis + 1) % 3, w = (axis + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      std::array<int, 4> corners{};
      const int uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      for (int i = 0; i < 4; ++i) corners[i] = (side << axis) | (uv[i][0] << u) | (uv[i][1] << w);
      std::array<int, 4> face_edges{};  // face_edges[i] joins corners i and i + 1
      int crossed = 0;
      for (int i = 0; i < 4; ++i) {
        face_edges[i] = edge_between(edges, corners[i], corners[(i + 1) % 4]);
        if (negative(corners[i]) != negative(corners[(i + 1) % 4])) ++crossed;
      }
      auto join = [&](int a, int b) {
        neighbours[a].push_back(b);
        neighbours[b].push_back(a);
      };
      if (crossed == 2) {
        int first = -1;
        for (int i = 0; i < 4; ++i) {
          if (negative(corners[i]) == negative(corners[(i + 1) % 4])) continue;
          if (first < 0) {
            first = face_edges[i];
          } else {
            join(first, face_edges[i]);
          }
        }
      } else if (crossed == 4) {
        // Alternating signs: each segment cuts off a negative corner.
        for (int i = 0; i < 4; ++i) {
          if (negative(corners[i])) join(face_edges[(i + 3) % 4], face_edges[i]);
        }
      }
    }
  }
  CubeCase result;
  std::array<bool, 12> visited{};
  for (int start = 0; start < 12; ++start) {
    if (visited[start] || neighbours[start].empty()) continue;
    std::vector<int> loop{start};
    visited[start] = true;
    int previous = start, current = neighbours[start][0];
    while (current != start) {
      loop.push_back(current);
      visited[current] = true;
      int next = neighbours[current][0] == previous ? neighbours[current][1] : neighbours[current][0];
      previous = current;
      current = next;
    }
    // Orientation: the loop's normal (Newell) against the sum of its edges' directions from the
    // negative to the positive corner.
    std::array<double, 3> normal{0, 0, 0}, reference{0, 0, 0};
    for (size_t i = 0; i < loop.size(); ++i) {
      const CubeEdge &a = edges[loop[i]], &b = edges[loop[(i + 1) % loop.size()]];
      auto pa0 = corner_position(a.from), pa1 = corner_position(a.to);
      auto pb0 = corner_position(b.from), pb1 = corner_position(b.to);
      std::array<double, 3> p{}, q{};
      for (int k = 0; k < 3; ++k) {
        p[k] = (pa0[k] + pa1[k]) / 2;
        q[k] = (pb0[k] + pb1[k]) / 2;
      }
      normal[0] += (p[1] - q[1]) * (p[2] + q[2]);
      normal[1] += (p[2] - q[2]) * (p[0] + q[0]);
      normal[2] += (p[0] - q[0]) * (p[1] + q[1]);
      double direction = negative(a.from) ? 1.0 : -1.0;
      reference[a.axis] += direction;
    }
    double dot = normal[0] * reference[0] + normal[1] * reference[1] + normal[2] * reference[2];
    if (dot < 0) std::reverse(loop.begin() + 1, loop.end());
    for (size_t i = 1; i + 1 < loop.size(); ++i) {
      result.triangles[result.triangle_count++] = {int8_t(loop[0]), int8_t(loop[i]), int8_t(loop[i + 1])};
    }
  }
  return result;
}

}  // namespace

const std::array<CubeEdge, 12> &cube_edges() {
  static const std::array<CubeEdge, 12> edges = make_edges();
  return edges;
}

const std::array<CubeCase, 256> &cube_cases() {
  static const std::array<CubeCase, 256> cases = [] {
    std::array<CubeCase, 256> built{};
    for (int pattern = 0; pattern < 256; ++pattern) built[pattern] = make_case(pattern, cube_edges());
    return built;
  }();
  return cases;
}

}  // namespace cvision::tsdf
