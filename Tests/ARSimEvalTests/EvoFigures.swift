import ARSimEval

/// Figures computed by evo 1.38.1 (`pip install evo`, Python 3.11) on the files of
/// ../shared/datasets/evo-reference/test/data, with the command shown for each (plus
/// `--no_warnings --save_results`); statistics from the result's stats.json, the count from its
/// error_array. Used only as expected values: the tests do not run evo.
let evoFigures: [EvoFigure] = [
  EvoFigure(
    command: "evo_ape tum fr2_desk_groundtruth.txt fr2_desk_ORB.txt -a",
    reference: "fr2_desk_groundtruth.txt", format: .tum, estimate: "fr2_desk_ORB.txt",
    metric: .ape(.init(alignment: .se3)),
    expected: EvoStatistics(
      rmse: 0.008118977562044926, mean: 0.0074917768702161495,
      median: 0.007414629829316952, std: 0.00312906950703932,
      min: 0.0003496361984068482, max: 0.024299593694385276,
      sse: 0.14330528992359803, count: 2174)),
  EvoFigure(
    command: "evo_ape tum fr2_desk_groundtruth.txt fr2_desk_ORB.txt -as",
    reference: "fr2_desk_groundtruth.txt", format: .tum, estimate: "fr2_desk_ORB.txt",
    metric: .ape(.init(alignment: .sim3)),
    expected: EvoStatistics(
      rmse: 0.006123163030157264, mean: 0.00558619731870614,
      median: 0.005305225075852613, std: 0.002507493770752984,
      min: 0.0001897958096088303, max: 0.021476785562788304,
      sse: 0.08151005482370531, count: 2174)),
  EvoFigure(
    command: "evo_rpe tum fr2_desk_groundtruth.txt fr2_desk_ORB.txt",
    reference: "fr2_desk_groundtruth.txt", format: .tum, estimate: "fr2_desk_ORB.txt", metric: .rpe(.init()),
    expected: EvoStatistics(
      rmse: 0.003490321374787292, mean: 0.0030380874175009644,
      median: 0.002750288386204023, std: 0.0017182456584898963,
      min: 0.0001319690055884261, max: 0.01948467892016712,
      sse: 0.026472231989372496, count: 2173)),
  EvoFigure(
    command: "evo_rpe tum fr2_desk_groundtruth.txt fr2_desk_ORB.txt -r angle_deg",
    reference: "fr2_desk_groundtruth.txt", format: .tum, estimate: "fr2_desk_ORB.txt",
    metric: .rpe(.init(relation: .rotationAngleDegrees)),
    expected: EvoStatistics(
      rmse: 0.2805192262673266, mean: 0.22955611958091907,
      median: 0.18781845711906164, std: 0.16122972513953612,
      min: 0.0060389459196583985, max: 1.25940350270801,
      sse: 170.99562189211133, count: 2173)),
  EvoFigure(
    command: "evo_ape tum fr2_desk_groundtruth.txt fr2_desk_ORB_kf_mono.txt -as",
    reference: "fr2_desk_groundtruth.txt", format: .tum, estimate: "fr2_desk_ORB_kf_mono.txt",
    metric: .ape(.init(alignment: .sim3)),
    expected: EvoStatistics(
      rmse: 0.007729264783424068, mean: 0.007103615951625619,
      median: 0.007099822211333756, std: 0.003046337884097819,
      min: 0.0012163596984312017, max: 0.015688557595242313,
      sse: 0.007049501022888982, count: 118)),
  EvoFigure(
    command: "evo_rpe tum fr2_desk_groundtruth.txt fr2_desk_ORB_kf_mono.txt -as",
    reference: "fr2_desk_groundtruth.txt", format: .tum, estimate: "fr2_desk_ORB_kf_mono.txt",
    metric: .rpe(.init(alignment: .sim3)),
    expected: EvoStatistics(
      rmse: 0.007069324681400337, mean: 0.005698826112083059,
      median: 0.0049311943208374415, std: 0.004183148622185956,
      min: 0.0005701402460120852, max: 0.03590258375153949,
      sse: 0.00584711611977355, count: 117)),
  EvoFigure(
    command: "evo_ape tum freiburg1_xyz-groundtruth.txt freiburg1_xyz-rgbdslam.txt -a",
    reference: "freiburg1_xyz-groundtruth.txt", format: .tum, estimate: "freiburg1_xyz-rgbdslam.txt",
    metric: .ape(.init(alignment: .se3)),
    expected: EvoStatistics(
      rmse: 0.013470088849733684, mean: 0.012024498709110237,
      median: 0.011183186775061079, std: 0.0060708092058905936,
      min: 0.0009550461813175756, max: 0.03475954589500906,
      sse: 0.14243298549147998, count: 785)),
  EvoFigure(
    command: "evo_ape tum freiburg1_xyz-groundtruth.txt freiburg1_xyz-rgbdslam.txt --align_origin",
    reference: "freiburg1_xyz-groundtruth.txt", format: .tum, estimate: "freiburg1_xyz-rgbdslam.txt",
    metric: .ape(.init(alignment: .origin)),
    expected: EvoStatistics(
      rmse: 0.0193679199417015, mean: 0.017348899180007264,
      median: 0.01586610065781946, std: 0.008609995360631843,
      min: 3.1401849173675503e-16, max: 0.04217667886684081,
      sse: 0.29446631345150454, count: 785)),
  EvoFigure(
    command: "evo_rpe tum freiburg1_xyz-groundtruth.txt freiburg1_xyz-rgbdslam.txt --delta 10",
    reference: "freiburg1_xyz-groundtruth.txt", format: .tum, estimate: "freiburg1_xyz-rgbdslam.txt",
    metric: .rpe(.init(delta: 10)),
    expected: EvoStatistics(
      rmse: 0.01461013202388883, mean: 0.012477076968475899,
      median: 0.011981234060699633, std: 0.007601217539196613,
      min: 0.0010349715017425696, max: 0.043153861730255504,
      sse: 0.01664956470492603, count: 78)),
  EvoFigure(
    command: "evo_ape tum freiburg1_xyz-groundtruth.txt freiburg1_xyz-rgbdslam_drift.txt -a",
    reference: "freiburg1_xyz-groundtruth.txt", format: .tum, estimate: "freiburg1_xyz-rgbdslam_drift.txt",
    metric: .ape(.init(alignment: .se3)),
    expected: EvoStatistics(
      rmse: 0.013470118951368286, mean: 0.012024516062202239,
      median: 0.011183137957357155, std: 0.006070841624836824,
      min: 0.0009555203012449429, max: 0.03475989717409255,
      sse: 0.14243362208274868, count: 785)),
  EvoFigure(
    command: "evo_ape tum freiburg1_xyz-groundtruth.txt freiburg1_xyz-ORB_kf_mono.txt -as",
    reference: "freiburg1_xyz-groundtruth.txt", format: .tum, estimate: "freiburg1_xyz-ORB_kf_mono.txt",
    metric: .ape(.init(alignment: .sim3)),
    expected: EvoStatistics(
      rmse: 0.009754581898685118, mean: 0.008218698588816626,
      median: 0.007909070259951256, std: 0.0052540328819240326,
      min: 0.0018768480970276604, max: 0.02792400173407602,
      sse: 0.003044859776580971, count: 32)),
  EvoFigure(
    command: "evo_ape euroc V102_groundtruth.csv V102.txt -a",
    reference: "V102_groundtruth.csv", format: .euroc, estimate: "V102.txt",
    metric: .ape(.init(alignment: .se3)),
    expected: EvoStatistics(
      rmse: 0.09172711520685745, mean: 0.08152162194619841,
      median: 0.07791194901949514, std: 0.04204864824739554,
      min: 0.0026199870973829826, max: 0.2558167338139711,
      sse: 6.714263204009335, count: 798)),
  EvoFigure(
    command: "evo_ape euroc V102_groundtruth.csv V102.txt -as",
    reference: "V102_groundtruth.csv", format: .euroc, estimate: "V102.txt",
    metric: .ape(.init(alignment: .sim3)),
    expected: EvoStatistics(
      rmse: 0.08384138804295287, mean: 0.07484108478263368,
      median: 0.07194517866622556, std: 0.03779140613324193,
      min: 0.007000290579423439, max: 0.2266517923827704,
      sse: 5.609443922477261, count: 798)),
  EvoFigure(
    command: "evo_rpe euroc V102_groundtruth.csv V102.txt",
    reference: "V102_groundtruth.csv", format: .euroc, estimate: "V102.txt", metric: .rpe(.init()),
    expected: EvoStatistics(
      rmse: 0.015076710159641328, mean: 0.006106922465380456,
      median: 0.004183939336058311, std: 0.013784508958960544,
      min: 0.00011469502653262393, max: 0.21740892442745757,
      sse: 0.18116382982255214, count: 797)),
  EvoFigure(
    command: "evo_rpe euroc V102_groundtruth.csv V102.txt -as -r angle_deg",
    reference: "V102_groundtruth.csv", format: .euroc, estimate: "V102.txt",
    metric: .rpe(.init(alignment: .sim3, relation: .rotationAngleDegrees)),
    expected: EvoStatistics(
      rmse: 0.3576155948859285, mean: 0.08987560074843898,
      median: 0.03303003251207653, std: 0.3461376750596845,
      min: 0.003067746632942508, max: 4.9391549602546885,
      sse: 101.92746422337638, count: 797)),
  EvoFigure(
    command: "evo_ape kitti KITTI_00_gt.txt KITTI_00_ORB.txt -a",
    reference: "KITTI_00_gt.txt", format: .kitti, estimate: "KITTI_00_ORB.txt",
    metric: .ape(.init(alignment: .se3)),
    expected: EvoStatistics(
      rmse: 1.3034497145650337, mean: 1.1569971285389835,
      median: 1.0656247695557912, std: 0.600282269396835,
      min: 0.06931322021482282, max: 3.587949120678975,
      sse: 7715.07344029289, count: 4541)),
  EvoFigure(
    command: "evo_rpe kitti KITTI_00_gt.txt KITTI_00_ORB.txt --delta 10 --delta_unit m",
    reference: "KITTI_00_gt.txt", format: .kitti, estimate: "KITTI_00_ORB.txt",
    metric: .rpe(.init(delta: 10, deltaUnit: .metres)),
    expected: EvoStatistics(
      rmse: 0.23676346946465107, mean: 0.1723009174999345,
      median: 0.13848794835907108, std: 0.16238637350966226,
      min: 0.0253227196607831, max: 1.3313924766703351,
      sse: 19.844156927420322, count: 354)),
  EvoFigure(
    command: "evo_rpe kitti KITTI_00_gt.txt KITTI_00_ORB.txt --delta 10 --delta_unit m --all_pairs",
    reference: "KITTI_00_gt.txt", format: .kitti, estimate: "KITTI_00_ORB.txt",
    metric: .rpe(.init(delta: 10, deltaUnit: .metres, allPairs: true)),
    expected: EvoStatistics(
      rmse: 0.23076404868596026, mean: 0.1723853980284087,
      median: 0.13571055541065577, std: 0.15341225737379446,
      min: 0.012510485837247906, max: 1.8920603317861557,
      sse: 241.391525270189, count: 4533)),
  EvoFigure(
    command: "evo_ape kitti KITTI_00_gt.txt KITTI_00_SPTAM.txt -as",
    reference: "KITTI_00_gt.txt", format: .kitti, estimate: "KITTI_00_SPTAM.txt",
    metric: .ape(.init(alignment: .sim3)),
    expected: EvoStatistics(
      rmse: 3.6352935643386006, mean: 3.3573057786205687,
      median: 3.4798637552962988, std: 1.3942227970315872,
      min: 0.22699281394828083, max: 7.291831027981607,
      sse: 60010.94657640319, count: 4541)),
]
