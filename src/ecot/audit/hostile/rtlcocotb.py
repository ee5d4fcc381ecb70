"""Hostile designs for rtl tasks with a cocotb testbench (the bundled `rtl/cocotb_counter`, and
`rtl/cocotb_seq_detect` for its hidden data file): the cocotb section of hostile/rtl.py.

The design runs in the same process as cocotb's Python (vvp embeds it), so these attack what that
process can reach: the files cocotb writes (results.xml), the output cocotb's log goes to, the end of
the simulation, the process's descriptors and environment by path (/dev/fd, /proc/self), the Python
import path (modules planted in the design's folder), the tests and their data. Oracle designs count
correctly only when `escaped` is set, i.e. when their attack worked.
"""

from __future__ import annotations

from ecot.core.outcome import RESOURCE_LIMIT, TIMEOUT
from ecot.domains.rtl.backend import SIMULATION_MISMATCH
from ecot.tasks.suite import bundled_suite_path

from .framework import Attack, Case, label_in

TASK = "rtl/cocotb_counter"
SEQ_TASK = "rtl/cocotb_seq_detect"
SUITE = bundled_suite_path("rtl")
SIM_ONLY = {"synth": "off"}
HEAD = "module counter #(parameter WIDTH = 8) (input wire clk, input wire rst, input wire en, output reg [WIDTH-1:0] count);\n"
RIGHT = "    always @(posedge clk) if (rst) count <= 0; else if (en) count <= count + 1'b1;\n"
WRONG = "    always @(posedge clk) if (rst) count <= 0; else if (en) count <= count + 2'd2;\n"
ORACLE = "    always @(posedge clk) if (rst) count <= 0; else if (en) count <= count + (escaped ? 2'd1 : 2'd2);\n"
TESTS = ("resets_to_zero", "counts_only_when_enabled", "wraps_around")


def counter(body: str) -> str:
    return f"{HEAD}{body}endmodule\n"


def oracle(attack: str) -> str:
    """Counts right only when `attack` (statements of an initial block) sets escaped."""
    head = "    integer fd, r;\n    reg escaped = 1'b0;\n    reg [8*200-1:0] path;\n"
    return counter(f"{head}    initial begin\n{attack}    end\n{ORACLE}")


def opened(path: str, mode: str, then: str = "escaped = 1;") -> str:
    """Open a path built at run time (past the refusal of literal host paths); `then` if it opened."""
    return f'        $sformat(path, "%0s", "{path}"); fd = $fopen(path, "{mode}");\n        if (fd != 0) begin {then} end\n'


def written(name: str, lines: list[str]) -> str:
    """Statements that write `lines` into the file `name` (in the design's folder unless absolute)."""
    quoted = "".join(f'$fdisplay(fd, "{line.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"); '
                     for line in lines)
    return f'        fd = $fopen("{name}", "w"); if (fd != 0) begin {quoted}$fclose(fd); end\n'


# cocotb's xunit results, every test passed: what cocotb's own runner (and CVDP's harness) reads
FORGED_XML = ['<testsuites name="results"><testsuite name="all" package="all" tests="3" failures="0" errors="0">',
              *(f'<testcase name="{test}" classname="test_counter" time="0.01"/>' for test in TESTS),
              "</testsuite></testsuites>"]
# A module planted where a careless harness would import it from (the design's folder, which cocotb's own
# entry point puts first on sys.path): the counter's tests import their model, counter_model, only once the
# design has run. Imported, it runs in the judging process: it finds the reporter's tag, writes a passing
# report and ends the process before the real one.
PLANTED_PY = ["import gc, json, os",
              "tag = next((o.tag for o in gc.get_objects() if type(o).__name__ == '_Reporter'), '0' * 32)",
              "def say(**record): os.write(1, (tag + json.dumps(record) + chr(10)).encode())",
              *(f"say(kind='test', name='test_counter.{t}', outcome='PASS', marked_skip=False, sim_ns=1.0, message='')" for t in TESTS),
              "say(kind='end', tests=3, cut_short=False)",
              "os._exit(0)"]
PLANTER = oracle("".join(written(name, PLANTED_PY) for name in
                         ("counter_model.py", "cocotb_report.py", "test_counter.py", "difflib.py", "sitecustomize.py")))
GUESSED_TAG = "0" * 32
FORGED_LINES = {
    "cocotb_log_lines": [f"{t * 10:>9}.00ns INFO     cocotb.regression                  test_counter.{name} passed"
                         for t, name in enumerate(TESTS)]
    + ["** TESTS=3 PASS=3 FAIL=0 SKIP=0                        4605.00           0.05      96352.19  **"],
    "guessed_report_tag": [f'{GUESSED_TAG}{{"kind": "start", "tests": 3}}',
                           *(f'{GUESSED_TAG}{{"kind": "test", "name": "test_counter.{t}", "outcome": "PASS", "marked_skip": false, '
                             f'"sim_ns": 1.0, "message": ""}}' for t in TESTS),
                           f'{GUESSED_TAG}{{"kind": "end", "tests": 3, "cut_short": false}}'],
}


def _display(lines: list[str]) -> str:
    escaped = [line.replace(chr(34), chr(92) + chr(34)) for line in lines]
    return "    initial begin " + " ".join(f'$display("{line}");' for line in escaped) + " end\n"


# The hidden data of seq_detect: a design that reads vectors.txt (the expected outputs) answers from it.
SEQ_REFERENCE = (SUITE / "cocotb_seq_detect" / "reference.sv").read_text()
SEQ_ORACLE = SEQ_REFERENCE.replace(
    "    reg [2:0] state;\n",
    "    reg [2:0] state;\n    integer fd;\n    reg escaped = 1'b0;\n    reg [8*200-1:0] path;\n    initial begin\n"
    + "".join(opened(p, "r") for p in ("vectors.txt", "tests/vectors.txt", "../vectors.txt", str(SUITE / "cocotb_seq_detect" / "vectors.txt")))
    + "    end\n",
).replace("assign found = (state == GOT1011);", "assign found = escaped && (state == GOT1011);")

EARLY_ENDS = {
    "cocotb_finish_at_zero": "    initial $finish;\n",
    "cocotb_finish_midway": "    initial #300 $finish;\n",
    "cocotb_stop_midway": "    initial #300 $stop;\n",
    "cocotb_fatal_midway": '    initial #300 $fatal(0, "bye");\n',
}
DESCRIPTORS = ("/dev/fd/1", "/dev/fd/3", "/dev/fd/4", "/proc/self/fd/1", "/proc/self/fd/3", "/dev/stdout")

CASES: dict[Attack, list[Case]] = {
    Attack.FORGE_CHANNEL: [
        Case("cocotb_results_xml", TASK, counter("    integer fd;\n    initial begin\n" + written("results.xml", FORGED_XML) + "    end\n" + WRONG),
             label_in(SIMULATION_MISMATCH), options=SIM_ONLY),
        Case("cocotb_report_descriptors", TASK, oracle("".join(opened(p, "w") for p in DESCRIPTORS)
                                                       + opened("/proc/self/environ", "r")), options=SIM_ONLY),
        Case("cocotb_shadow_modules", TASK, PLANTER, options=SIM_ONLY),
    ],
    Attack.READ_REFERENCE: [
        Case("cocotb_test_files", TASK, oracle("".join(opened(p, "r") for p in (
            "test_counter.py", "tests/test_counter.py", "../test_counter.py", "reference.sv", "task.toml",
            str(SUITE / "cocotb_counter" / "test_counter.py")))), options=SIM_ONLY),
        Case("cocotb_hidden_data_file", SEQ_TASK, SEQ_ORACLE, options=SIM_ONLY),
    ],
    Attack.EARLY_EXIT: [Case(name, TASK, counter(body + RIGHT), label_in(SIMULATION_MISMATCH)) for name, body in EARLY_ENDS.items()],
    Attack.FORGED_PRINT: [Case(name, TASK, counter(_display(lines) + WRONG), label_in(SIMULATION_MISMATCH))
                          for name, lines in FORGED_LINES.items()],
    Attack.PERSIST: [Case("cocotb_planted_modules_then_wrong", TASK, PLANTER, then=counter(WRONG), options=SIM_ONLY)],
    Attack.ENDLESS_LOOP: [Case("cocotb_zero_delay_loop", TASK, counter("    reg spin;\n    initial forever spin = ~spin;\n" + RIGHT),
                               label_in(TIMEOUT), wall_s=8.0)],
    Attack.OUTPUT_FLOOD: [Case("cocotb_display_flood", TASK, counter('    always @(clk) repeat (5000) $display("' + "A" * 120 + '");\n' + RIGHT),
                               label_in(RESOURCE_LIMIT), options=SIM_ONLY)],
}

# The positive control: the same oracle with a harmless "attack" (a file in its own folder) passes.
CONTROL = Case("cocotb_work_dir_write", TASK, oracle(opened("scratch.txt", "w", '$fdisplay(fd, "ok"); $fclose(fd); escaped = 1;')),
               options=SIM_ONLY)
