//! Tests of the library's parts through their public paths: the output
//! comparison, the registry, the studies' declarations, the line fit, the
//! command line's parser.

mod output {
    use simt_kernels::output::*;

    #[test]
    fn floats_compare_by_bits() {
        assert_ne!(Values::F32(vec![0.0]), Values::F32(vec![-0.0]));
        assert_eq!(Values::F32(vec![f32::NAN]), Values::F32(vec![f32::NAN]));
        assert_eq!(Values::F32(vec![1.5, 2.0]), Values::F32(vec![1.5, 2.0]));
    }

    #[test]
    fn mismatch_names_the_first_differing_element() {
        let m = Values::I32(vec![1, 2, 3, 4])
            .first_mismatch(&Values::I32(vec![1, 2, 5, 6]))
            .unwrap();
        assert_eq!(m.index, 2);
        assert_eq!(m.to_string(), "element 2: got 3, expected 5");
        let short = Values::I32(vec![1])
            .first_mismatch(&Values::I32(vec![1, 2]))
            .unwrap();
        assert_eq!(
            (short.index, short.got.as_str(), short.expected.as_str()),
            (1, "-", "2")
        );
    }

    #[test]
    fn different_types_never_match() {
        assert_ne!(Values::I32(vec![0]), Values::F32(vec![0.0]));
    }
}

mod reduce {
    use simt_kernels::kernels::reduce::oracle;

    #[test]
    fn the_tree_order_is_not_the_sequential_order() {
        // Why the oracle replays the tree: float addition is not associative.
        let v = [1.0e8f32, 1.0, -1.0e8, 1.0];
        assert_eq!(oracle::tree(&v), (1.0e8f32 + -1.0e8) + (1.0 + 1.0));
        assert_ne!(oracle::tree(&v), v.iter().sum::<f32>());
    }

    #[test]
    fn integer_partials_add_up() {
        let input: Vec<i32> = (0..512).collect();
        assert_eq!(oracle::reduce_i32(&input, 256), vec![32640, 98176]);
    }
}

mod registry {
    use simt_kernels::registry::*;

    #[test]
    fn names_are_unique_and_match_the_programs() {
        let mut names: Vec<_> = names().collect();
        let count = names.len();
        for spec in KERNELS {
            assert_eq!(spec.program.name, spec.name);
            assert!(find(spec.name).is_some());
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
        assert!(find("no_such_kernel").is_none());
    }
}

mod divergence_time {
    use simt_kernels::studies::divergence_time::fit_line;

    #[test]
    fn the_line_fit_recovers_a_line_and_scores_scatter_below_one() {
        let line: Vec<(f64, f64)> = (1..=5)
            .map(|x| (f64::from(x), 3.0 * f64::from(x) + 2.0))
            .collect();
        let (s, c, r2) = fit_line(&line);
        assert!((s - 3.0).abs() < 1e-12 && (c - 2.0).abs() < 1e-12 && (r2 - 1.0).abs() < 1e-12);
        // (1,1) (2,3) (3,2): slope 0.5, R² 0.25, worked by hand.
        let (s, _, r2) = fit_line(&[(1.0, 1.0), (2.0, 3.0), (3.0, 2.0)]);
        assert!(
            (s - 0.5).abs() < 1e-12 && (r2 - 0.25).abs() < 1e-12,
            "{s} {r2}"
        );
    }
}

mod studies {
    use simt::core::Dim3;
    use simt::core::{Finding, FindingKind, Site};
    use simt_kernels::studies::*;

    #[test]
    fn every_study_declares_the_figures_its_chart_draws() {
        for study in STUDIES {
            assert!(
                !simt_report::html::charts::figures(study.name).is_empty(),
                "{}",
                study.name
            );
        }
    }

    #[test]
    fn every_variant_launch_runs_the_sanitizers() {
        let c = config([2, 2], 64, 64);
        assert!(c.sanitize);
        assert_eq!((c.grid, c.wave_width), (Dim3::new(2, 2, 1), 64));
    }

    #[test]
    fn a_finding_fails_the_study_and_is_listed_under_its_table() {
        let clean = find("divergent_paths").and_then(|s| (s.run)(42, 32).ok());
        let clean = clean.expect("the study runs");
        assert!(clean.passed);
        assert!(!clean.table().contains("findings"));
        let mut variants = clean.variants.clone();
        let site = Site {
            inst: 3,
            line: 40,
            workgroup: [0, 0, 0],
            wave: 1,
            lane: 5,
        };
        let finding = Finding {
            kind: FindingKind::UninitVectorRegister { reg: 2 },
            at: site,
            other: None,
            address: None,
            bytes: 4,
            occurrences: 1,
            byte: None,
            register: None,
        };
        variants[1].findings.list.push(finding.clone());
        let result = StudyResult::new(
            clean.study,
            clean.source,
            clean.claim,
            32,
            variants,
            clean.relations.clone(),
        );
        assert!(!result.passed);
        let table = result.table();
        assert!(table.contains("| sanitizer findings | 0 | 1 |"), "{table}");
        assert!(
            table.contains(&format!("divergent_warps findings:\n- {finding}\n")),
            "{table}"
        );
    }
}

mod cli {
    use clap::error::ErrorKind;
    use simt::core::{MemoryModel, Schedule};
    use simt_kernels::cli::*;
    use simt_kernels::{registry, studies};
    use std::path::PathBuf;

    fn run(args: &[&str]) -> Options {
        match parse(args.iter().copied()) {
            Ok(Command::Run(o)) => o,
            other => panic!("expected options, got {other:?}"),
        }
    }

    #[test]
    fn the_derived_parser_is_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }

    #[test]
    fn defaults_run_everything_at_both_widths() {
        let o = run(&[]);
        assert_eq!(o.kernels.len(), registry::KERNELS.len());
        assert_eq!(o.widths, vec![32, 64]);
        assert_eq!(o.seed, 42);
        assert_eq!(o.model, MemoryModel::reference());
        assert_eq!(o.schedule, Schedule::UntilBarrier);
        assert!(o.out.ends_with("simt-report/results.json"));
        assert_eq!(o.launches, DEFAULT_LAUNCHES);
        assert_eq!(o.html, None);
        assert!(o.studies.is_empty());
        assert_eq!(o, Options::default());
    }

    #[test]
    fn the_committed_results_are_rewritten_only_when_asked() {
        let o = run(&["--update-results"]);
        assert!(o.out.ends_with("results/results.json"), "{:?}", o.out);
        assert!(!o.out.to_string_lossy().contains("target"), "{:?}", o.out);
        assert_eq!(o.out, committed_results());
        assert_ne!(default_out(), committed_results());
        let message = parse(["--update-results", "--out=/tmp/x.json"])
            .unwrap_err()
            .to_string();
        assert!(message.contains("cannot be used with"), "{message}");
    }

    fn study_names(o: &Options) -> Vec<&'static str> {
        o.studies.iter().map(|s| s.name).collect()
    }

    #[test]
    fn studies_alone_means_all_and_names_choose_some() {
        let all: Vec<_> = studies::STUDIES.iter().map(|s| s.name).collect();
        assert_eq!(study_names(&run(&["--studies"])), all);
        // Without a value before the next option, and with one.
        let o = run(&["--studies", "--width", "32"]);
        assert_eq!((study_names(&o), o.widths), (all.clone(), vec![32]));
        // In STUDIES order, not command-line order, in both spellings.
        for args in [
            &["--studies", "transpose,divergent_paths"][..],
            &["--studies=transpose, divergent_paths"],
        ] {
            assert_eq!(
                study_names(&run(args)),
                ["divergent_paths", "transpose"],
                "{args:?}"
            );
        }
        // The kernels still run.
        let o = run(&["--studies=switch32", "--kernels=vecadd_i32"]);
        assert_eq!(study_names(&o), ["switch32"]);
        assert_eq!(o.kernels.len(), 1);
    }

    #[test]
    fn an_unknown_study_is_an_error_listing_the_studies() {
        let e = parse(["--studies", "transpose,nope"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        let message = e.to_string();
        assert!(message.contains("--studies"), "{message}");
        assert!(message.contains("no study `nope`"), "{message}");
        assert!(
            message.contains("the studies are: divergent_paths, switch32,"),
            "{message}"
        );
        assert!(parse(["--studies="]).is_err());
    }

    #[test]
    fn every_option_in_both_spellings() {
        let o = run(&[
            "--kernels",
            "reduce_f32,vecadd_i32",
            "--width",
            "64",
            "--seed=7",
            "--model",
            "nvidia",
            "--out=/tmp/x.json",
            "--launches",
            "3",
            "--schedule=round-robin",
            "--html",
            "/tmp/x.html",
        ]);
        // Table order, not command-line order.
        let names: Vec<_> = o.kernels.iter().map(|k| k.name).collect();
        assert_eq!(names, vec!["vecadd_i32", "reduce_f32"]);
        assert_eq!(o.widths, vec![64]);
        assert_eq!(o.seed, 7);
        assert_eq!(o.model, MemoryModel::nvidia());
        assert_eq!(o.out, PathBuf::from("/tmp/x.json"));
        assert_eq!(o.launches, 3);
        assert_eq!(o.schedule, Schedule::RoundRobin);
        assert_eq!(o.html, Some(PathBuf::from("/tmp/x.html")));
        assert_eq!(run(&["--width=32"]).widths, vec![32]);
        assert_eq!(run(&["--width", "both"]).widths, vec![32, 64]);
        assert_eq!(run(&["--seed", "1", "--seed", "2"]).seed, 2);
        assert_eq!(run(&["--model", "cdna3"]).model, MemoryModel::cdna3());
    }

    #[test]
    fn annotate_names_one_kernel() {
        match parse(["--annotate", "lds_conflict_heavy_i32", "--width", "32"]) {
            Ok(Command::Annotate(spec, o)) => {
                assert_eq!(spec.name, "lds_conflict_heavy_i32");
                assert_eq!(o.widths, vec![32]);
            }
            other => panic!("{other:?}"),
        }
        let e = parse(["--annotate", "nope"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
    }

    #[test]
    fn help_wins() {
        let e = parse(["--seed", "1", "--help"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::DisplayHelp);
        let help = e.to_string();
        for option in [
            "--kernels",
            "--model",
            "--schedule",
            "--annotate",
            "--html",
            "--studies [<A,B,...>]",
        ] {
            assert!(help.contains(option), "{option} in {help}");
        }
        assert_eq!(parse(["-h"]).unwrap_err().kind(), ErrorKind::DisplayHelp);
    }

    #[test]
    fn mistakes_are_reported() {
        assert_eq!(
            parse(["--frobnicate"]).unwrap_err().kind(),
            ErrorKind::UnknownArgument
        );
        assert_eq!(
            parse(["stray"]).unwrap_err().kind(),
            ErrorKind::UnknownArgument
        );
        assert!(parse(["--seed"]).is_err());
        for (option, value) in [
            ("--seed", "-1"),
            ("--seed", "x"),
            ("--width", "48"),
            ("--model", "amd"),
            ("--schedule", "fifo"),
            ("--launches", "0"),
            ("--kernels", "vecadd_i32,nope"),
            ("--out", ""),
            ("--html", ""),
        ] {
            let e = parse([option, value]).unwrap_err();
            let message = e.to_string();
            assert!(message.contains(option), "{option} {value}: {message}");
        }
        let message = parse(["--kernels", "nope"]).unwrap_err().to_string();
        assert!(message.contains("matmul_tiled_f32"), "{message}");
        let message = parse(["--model", "amd"]).unwrap_err().to_string();
        assert!(message.contains("reference, nvidia, cdna3"), "{message}");
    }
}
