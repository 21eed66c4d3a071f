import ARSimEval
import ARSimRun
import Foundation

/// `arsim eval merge PART.json...`: combines the parts of a sharded `arsim eval` into the report one
/// run over the whole recording list gives.
enum EvalMergeCommand {
  static let help = """
    usage: arsim eval merge PART.json... [--json FILE] [--markdown FILE]

    Combines the parts written by `arsim eval RECORDING... --shard K/N --json PART.json` into the
    report one run over all the recordings gives: the tables on stdout, and the JSON and Markdown
    reports when asked (written atomically). The parts must belong to one run: the same recording
    list, the same options and the same N, every shard from 0 to N-1 exactly once, each complete.

    options:
      --json FILE                   write the report as JSON
      --markdown FILE               write the report as Markdown
      --help                        show this help

    Exit status 0 on success; non-zero with a one-line error naming the part and the problem.
    """

  static func run(_ arguments: [String]) throws -> Int32 {
    let args = try Arguments(arguments, valueOptions: ["json", "markdown"], flagOptions: ["help"])
    if args.flag("help") {
      print(help)
      return 0
    }
    guard !args.positional.isEmpty else {
      throw Arguments.UsageError("merge: missing PART.json (see --help)")
    }
    for path in [args.value("json"), args.value("markdown")].compactMap({ $0 }) {
      try EvalCommand.checkWritable(path)
    }
    let parts = try args.positional.map { path in (path: path, part: try EvaluationPart.load(path: path)) }
    try EvalCommand.report(try EvaluationPart.merge(parts), arguments: args)
    return 0
  }
}
