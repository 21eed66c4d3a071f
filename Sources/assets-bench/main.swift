// assets-bench FILE... [--runs N]: loads each model file N times (default 50) with ARSimAssets and
// prints the per-load median, minimum and 90th percentile in milliseconds, with the file's size.
// A load is what Entity.load(contentsOf:) does before making entities: read the file, the zip
// directory, the layers (crate or text), compose references and build the prims in metres and y-up.
import ARSimAssets
import Foundation

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
  var milliseconds: [Double] = []
  var nodes = 0
  var vertices = 0
  for _ in 0..<runs {
    let start = ContinuousClock.now
    do {
      let asset = try ModelAsset(contentsOf: url)
      let elapsed = ContinuousClock.now - start
      milliseconds.append(
        Double(elapsed.components.attoseconds) * 1e-15 + Double(elapsed.components.seconds) * 1e3)
      nodes = asset.allNodes.count
      vertices = asset.allNodes.reduce(0) { $0 + ($1.geometry?.vertexCount ?? 0) }
    } catch {
      FileHandle.standardError.write(Data("\(error)\n".utf8))
      exit(1)
    }
  }
  milliseconds.sort()
  let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
  let median = milliseconds[milliseconds.count / 2]
  let p90 = milliseconds[min(milliseconds.count - 1, milliseconds.count * 9 / 10)]
  print(
    String(
      format: "%@: %d bytes, %d prims, %d vertices; %d loads: median %.2f ms, min %.2f ms, p90 %.2f ms",
      file, size, nodes, vertices, runs, median, milliseconds[0], p90))
}
