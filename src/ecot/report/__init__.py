"""`ecot report`: a static HTML report and trajectory browser over a trajectory store.

    from ecot.report import ReportOptions, build_report
    result = build_report(ReportOptions(store=Path("out/ecot.db"), out=Path("out/report")))

Self-contained (opens from the file system, fetches nothing), escaped throughout, and incremental:
a rerun renders only the pages whose trajectory changed. See docs/report.md.
"""

from ecot.report.site import ReportOptions, ReportResult, build_report

__all__ = ["ReportOptions", "ReportResult", "build_report"]
