import ARSim
import ARSimRun
import Foundation

// arsim: the command-line tool. Thin by design: each command parses its options, calls the
// library, prints results on stdout and progress on stderr.

let usage = """
  usage: arsim COMMAND [options]

  commands:
    replay RECORDING     replay a recording and print a summary (arsim replay --help)
    generate SCENE OUT   render a synthetic recording with ground truth (arsim generate --help)
    import SRC OUT       convert a Stray Scanner, Record3D or ARKitScenes recording into the
                         ARSim format (arsim import --help)
    eval RECORDING...    replay and score against ground truth (arsim eval --help)
    bench RECORDING...   per-stage milliseconds per frame (arsim bench --help)
    render RECORDING     draw planes, points and tracking state over the frames; trajectory
                         plot and PLY exports (arsim render --help)

  Exit status 0 on success; non-zero with a one-line error naming the file and the problem.
  """

func runCommand(_ arguments: [String]) -> Int32 {
  guard let command = arguments.first else {
    printError(usage)
    return 2
  }
  let rest = Array(arguments.dropFirst())
  do {
    switch command {
    case "replay": return try ReplayCommand.run(rest)
    case "generate": return try GenerateCommand.run(rest)
    case "import": return try ImportCommand.run(rest)
    case "eval": return try EvalCommand.run(rest)
    case "bench": return try BenchCommand.run(rest)
    case "render": return try RenderCommand.run(rest)
    case "--help", "-h", "help":
      print(usage)
      return 0
    default:
      printError("arsim: unknown command '\(command)'\n" + usage)
      return 2
    }
  } catch let error as Arguments.UsageError {
    printError("arsim \(command): \(error)")
    return 2
  } catch {
    printError("arsim \(command): \(error)")
    return 1
  }
}

// Every frame allocates and frees the same large buffers (decoded images, depth in metres,
// OpenCV's corner and pyramid scratch, several MB in all); by default glibc gives the top of its
// heap back to the system and faults it in again, zeroed, for the next frame (about 170 page
// faults a frame on 640x480). Keeping freed memory for reuse spares that; the heap stays at its
// peak, which replay keeps flat.
VisionRuntime.keepFreedMemory()

let status = runCommand(Array(CommandLine.arguments.dropFirst()))
if status != 0 { TemporaryFiles.removeAll() }
exit(status)
