// assets-bench FILE... [--runs N]: loads each model file N times (default 50) and prints, per way of
// loading, the per-load median, minimum and 90th percentile in milliseconds, with the file's size:
// `read` is ARSimAssets alone (the file, the zip directory, the layers, composition, prims in metres
// and y-up); `Entity.load` adds the entities and their meshes; `loadModel` flattens them into one mesh.
import ARSimAssets
import ARSimScene
import Foundation

/// This thread's CPU time, milliseconds (the machine is shared: wall time includes waiting for a core).
func cpuMilliseconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) * 1e-6
}

/// Wall and CPU milliseconds of each of `runs` calls of `body`, each sorted.
func measure(_ runs: Int, _ body: () throws -> Void) rethrows -> (wall: [Double], cpu: [Double]) {
  var wall: [Double] = []
  var cpu: [Double] = []
  for _ in 0..<runs {
    let start = ContinuousClock.now
    let cpuStart = cpuMilliseconds()
    try body()
    cpu.append(cpuMilliseconds() - cpuStart)
    let elapsed = ContinuousClock.now - start
    wall.append(Double(elapsed.components.attoseconds) * 1e-15 + Double(elapsed.components.seconds) * 1e3)
  }
  return (wall.sorted(), cpu.sorted())
}

var files: [String] = []
var runs = 50
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  if argument == "--runs", let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 {
    runs = value
  } else if argument.hasPrefix("-") {
    FileHandle.standardError.write(Data("usage: assets-bench FILE... [--runs N]\n".utf8))
    exit(2)
  } else {
    files.append(argument)
  }
}
guard !files.isEmpty else {
  FileHandle.standardError.write(Data("usage: assets-bench FILE... [--runs N]\n".utf8))
  exit(2)
}
for file in files {
  let url = URL(fileURLWithPath: file)
  do {
    let asset = try ModelAsset(contentsOf: url)
    let nodes = asset.allNodes
    let vertices = nodes.reduce(0) { $0 + ($1.geometry?.vertexCount ?? 0) }
    let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
    print("\(file): \(size) bytes, \(nodes.count) prims, \(vertices) vertices; \(runs) loads each:")
    let ways: [(String, () throws -> Void)] = [
      ("read", { _ = try ModelAsset(contentsOf: url) }),
      ("Entity.load", { _ = try Entity.load(contentsOf: url) }),
      ("loadModel", { _ = try ModelEntity.loadModel(contentsOf: url) }),
    ]
    for (name, body) in ways {
      let (ms, cpu) = try measure(runs, body)
      print(
        String(
          format: "  %-12@ median %.2f ms (CPU %.2f ms), min %.2f ms, p90 %.2f ms", name, ms[ms.count / 2],
          cpu[cpu.count / 2], ms[0], ms[min(ms.count - 1, ms.count * 9 / 10)]))
    }
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
}
