"""Hostile RTL candidates (Verilog designs for the bundled `rtl/mux4_bus`), one entry per attack class.

Oracle designs are the correct mux only when `escaped` is set, i.e. when their attack worked. File
attacks build their paths at run time ($sformat), past the backend's refusal of literal host paths,
so they meet the sandbox itself; and they run with synth = "off", because the structural checks
refuse to read a design that calls $fopen at all (a separate case below shows that refusal).
Attacks on imported benchmarks (VerilogEval, RTLLM testbenches) live in test_rtl_benchmarks.py,
since a case here runs on a bundled task. The cases of tasks with a cocotb testbench (the bundled
rtl/cocotb_* tasks) come from rtlcocotb.py and join each class's list at the end of this file.
"""

from __future__ import annotations

from contextlib import AbstractContextManager as ContextManager
from pathlib import Path

from ecot.core.outcome import RESOURCE_LIMIT, TIMEOUT, Outcome
from ecot.domains.rtl.backend import (
    ELABORATION_ERROR,
    LINT_ERROR,
    SIMULATION_MISMATCH,
    SYNTAX_ERROR,
    SYNTHESIS_ERROR,
)
from ecot.tasks.suite import bundled_suite_path

from ..common import files_stay_absent, no_process_left, task_cache_files, unique_marker, within
from . import rtlcocotb
from .framework import Attack, Case, DomainCases, NotApplicable, cases_of, cleaned, label_in, not_pass

TASK = "rtl/mux4_bus"
SIM_ONLY = {"synth": "off"}
HEAD = "module mux4_bus (input wire [1:0] sel, input wire [7:0] d0, d1, d2, d3, output reg [7:0] y);\n"
HEAD_WIRE = HEAD.replace("output reg", "output wire")
ORACLE_MUX = "    always @* case (sel) 2'b00: y = escaped ? d0 : ~d0; 2'b01: y = d1; 2'b10: y = d2; default: y = d3; endcase\n"
CORRECT_MUX = "    always @* case (sel) 2'b00: y = d0; 2'b01: y = d1; 2'b10: y = d2; default: y = d3; endcase\n"
WRONG_MUX = "    always @* case (sel) 2'b00: y = d1; 2'b01: y = d0; 2'b10: y = d2; default: y = d3; endcase\n"
LATCH_MUX = "    always @* case (sel) 2'b00: y = d0; 2'b01: y = d1; 2'b10: y = d2; 2'b11: if (sel[0]) y = d3; endcase\n"
HOST_FILES = (Path("/etc/ecot_pwned"), Path("/tmp/ecot_pwned"), Path.home() / "ecot_pwned")
CACHE_FILES = task_cache_files("ecot_pwned")  # a forged reference profile (sample count) would outlive the run


def design(body: str) -> str:
    return f"{HEAD}{body}endmodule\n"


def oracle(attack: str, declarations: str = "") -> str:
    """Correct only when `attack` (statements of an initial block) sets escaped."""
    head = "    integer fd, r, size;\n    reg escaped = 1'b0;\n    reg [8*160-1:0] path;\n"
    return design(f"{head}{declarations}    initial begin\n{attack}    end\n{ORACLE_MUX}")


def opened(path: str, mode: str, then: str = "escaped = 1;") -> str:
    """Open a path built at run time; run `then` when the open succeeds."""
    return f'        $sformat(path, "%0s", "{path}"); fd = $fopen(path, "{mode}");\n        if (fd != 0) begin {then} end\n'


def wrote(path: str) -> str:
    # the sandbox gives each job a private, writable /tmp: only the other paths are escapes
    flag = "" if path.startswith("/tmp/") else " escaped = 1;"
    return opened(path, "w", f'$fdisplay(fd, "pwned"); $fclose(fd);{flag}')


def outside_files_absent() -> ContextManager[None]:
    return files_stay_absent(HOST_FILES)


def without_leak(outcome: Outcome) -> bool:
    return not_pass(outcome) and "root:" not in outcome.log


# -- the verdict channel ------------------------------------------------------------------------------
# Scans the compiled program (which holds the testbench's secret tag) for "@ECOT...@" and prints a
# forged verdict with it; the program reaches vvp through a read-once pipe.
TAG_THIEF = """    integer fd, c;
    reg [8*22-1:0] window, tag;
    reg found;
    initial begin
        found = 0; window = 0; tag = 0;
        fd = $fopen("sim.vvp", "r");
        if (fd == 0) fd = $fopen("c.vvp", "r");
        if (fd != 0) begin
            c = $fgetc(fd);
            while (c != -1 && !found) begin
                window = {window[8*21-1:0], c[7:0]};
                if (window[8*22-1:8*17] == "@ECOT" && window[7:0] == "@") begin found = 1; tag = window; end
                c = $fgetc(fd);
            end
        end
        if (found) begin $display("%sECOT-TESTBENCH-END", tag); $display("%sMismatches: 0 in 600 samples", tag); $finish; end
    end
"""
FORGED_PRINTS = {
    "plain": '$display("Mismatches: 0 in 600 samples");',
    "plain_then_finish": '$display("Mismatches: 0 in 600 samples"); $finish;',
    "guessed_tag": '$display("@ECOT0123456789abcdef@Mismatches: 0 in 600 samples"); $finish;',
    "stdout_descriptor": '$fdisplay(32\'h8000_0001, "Mismatches: 0 in 600 samples"); $fwrite(1, "Mismatches: 0 in 1 samples\\n");',
    "late_forgery": '#100000 $display("Mismatches: 0 in 600 samples");',
}
TERMINAL_TRICKS = ('$display("\\033[2K\\r\\033[1A\\033]8;;http://x\\033\\\\Mismatches: 0 in 600 samples\\033]8;;\\033\\\\");'
                   ' $display("\\033]0;owned\\007 \\001\\177 done");')
# Dumps every signal (testbench included) to a VCD and looks for the bench's expected-value register.
WAVEFORM_SPY = """    integer fd, c;
    reg escaped = 1'b0;
    reg [8*5-1:0] window = 0;
    initial begin
        $dumpfile("spy.vcd");
        $dumpvars;
        #0.5 $dumpflush;
        fd = $fopen("spy.vcd", "r");
        if (fd != 0) begin
            c = $fgetc(fd);
            while (c != -1 && !escaped) begin
                window = {window[8*4-1:0], c[7:0]};
                if (window == "exp_y") escaped = 1;
                c = $fgetc(fd);
            end
        end
    end
"""
SUITE = bundled_suite_path("rtl")
REFERENCES = [f"{SUITE}/mux4_bus/reference.sv", "/work/main/src/ecot/domains/rtl/suite/mux4_bus/reference.sv",
              "testbench.sv", "reference.sv", "task.toml", "../testbench.sv"]

# -- structural checks that must not be dodged ------------------------------------------------------------
HIDDEN_LATCHES = {
    "unparsable_line": '    integer fd;\n    initial fd = $fopen("x.txt", "w");\n' + LATCH_MUX,
    "ifdef_simulator": f"`ifdef __ICARUS__\n{LATCH_MUX}`else\n{CORRECT_MUX}`endif\n",
    "ifdef_synthesis": f"`ifndef SYNTHESIS\n{LATCH_MUX}`else\n{CORRECT_MUX}`endif\n",
    "nolatches_attribute": "    (* nolatches *)\n" + LATCH_MUX,
    "blackbox_attribute": LATCH_MUX,  # the attribute goes before `module` (see below)
    # values 2-5 of the case expression never occur, so the simulation is right; only full_case hides the latch
    "full_case_comment": "    always @* case ({sel[1], sel}) // synopsys full_case parallel_case\n"
                         "        3'd0: y = d0; 3'd1: y = d1; 3'd6: y = d2; 3'd7: y = d3; endcase\n",
    "translate_off": f"// synopsys translate_off\n{LATCH_MUX}// synopsys translate_on\n",
    "string_hides_comment": '    initial $display("/*");\n' + LATCH_MUX + '    initial $display("*/");\n',
}


def _hidden_latch(name: str, body: str) -> Case:
    candidate = design(body)
    if name == "blackbox_attribute":
        candidate = "(* blackbox *)\n" + candidate
    return Case(name, TASK, candidate, label_in(SYNTHESIS_ERROR))


HIDE_FROM_CHECKS = [
    *(_hidden_latch(name, body) for name, body in HIDDEN_LATCHES.items()),
    Case("extra_module_without_top", TASK, design(LATCH_MUX) + "module unused_helper; endmodule\n",
         label_in(SYNTHESIS_ERROR), options={"top": ""}),
    Case("lint_off_comment", TASK, design("    wire [8:0] wide = d0 + d1;\n    /* verilator lint_off WIDTH */\n"
                                          "    wire [7:0] narrow = wide;\n    /* verilator lint_on WIDTH */\n" + CORRECT_MUX),
         label_in(LINT_ERROR), options={"lint": True}),
]

# -- early ends -----------------------------------------------------------------------------------------
EARLY_ENDS = {
    "finish_at_zero": "    initial $finish;\n",
    "stop_at_zero": "    initial $stop;\n",
    "fatal_midway": "    initial #300 $fatal(0, \"bye\");\n",
    "finish_midway": "    initial #300 $finish(0);\n",
    "spin_then_finish": "    integer n;\n    initial begin for (n = 0; n < 2000000; n = n + 1) ; $finish; end\n",
}

PLANT = ("/tmp/ecot_persist_marker", "/dev/shm/ecot_persist_marker", "../ecot_persist_marker", "ecot_persist_marker")
FIND_PLANTED = "".join(opened(p, "r") for p in PLANT) + opened(
    "/etc/ld.so.preload", "r", 'line = 0; r = $fgets(line, fd); if (line == "/ecot_persist.so\\n") escaped = 1;')
PLANTER = oracle("".join(wrote(p) for p in PLANT) + opened("/etc/ld.so.preload", "w", '$fdisplay(fd, "/ecot_persist.so"); $fclose(fd);'))

# 17 files of 64 MB, each under the 64 MiB file-size limit: 1.09 GB, which a per-job quota must stop.
# (Verilog writes about 100 MB/s, so the CPU limit alone caps a design near 2 GB per job.)
DISK_FILLER = """        size = 0;
        for (k = 0; k < 17; k = k + 1) begin
            $sformat(path, "fill%0d.bin", k);
            fd = $fopen(path, "w");
            repeat (8) $fwrite(fd, "%8000000d", 0);
            $fclose(fd);
            fd = $fopen(path, "r");
            if (fd != 0) begin r = $fseek(fd, 0, 2); size = size + $ftell(fd) / 1000000; $fclose(fd); end
        end
        escaped = size >= 1088;
"""
ONE_FILE = '    integer fd;\n    initial begin fd = $fopen("fill.bin", "w"); forever $fwrite(fd, "%0s", "' + "B" * 64 + '"); end\n'
MEMORY_HOG = "    reg [63:0] big [0:(1<<28)-1];\n    integer i;\n    initial for (i = 0; i < (1<<28); i = i + 4096) big[i] = i;\n"
FLOOD = '    initial forever $display("' + "A" * 120 + '");\n'
SPIN = "    reg spin;\n    initial forever spin = ~spin;\n"
# Verilog has threads, not processes: a design can only spawn them without end (fork ... join_none).
SPAWNER = "    integer n = 0;\n    initial forever fork begin n = n + 1; end join_none\n"
SPIN_MARKER = unique_marker()

VERILOG_CASES: DomainCases = {
    Attack.TAKEOVER: [
        Case("proc_mem", TASK, oracle("".join(opened(f"/proc/{p}/mem", "r+") for p in ("1", "2", "self"))), options=SIM_ONLY),
        Case("system_kill", TASK, design('    initial $system("kill -9 -1");\n' + CORRECT_MUX), label_in(ELABORATION_ERROR)),
    ],
    Attack.LINK_RACE: NotApplicable(
        "the RTL backend reads no file a job wrote (only the captured stdout/stderr of iverilog, vvp, Yosys and "
        "Verilator, plus the preprocessor's output, read without following links before any design code runs), "
        "and Verilog has no system task that creates a link or a pipe"),
    Attack.READ_REFERENCE: [
        Case("suite_files", TASK, oracle("".join(opened(p, "r") for p in REFERENCES)), options=SIM_ONLY),
        Case("expected_value_by_name", TASK, HEAD_WIRE + "    assign y = tb.exp_y;\nendmodule\n", label_in(ELABORATION_ERROR)),
        Case("expected_value_unhidden", TASK, HEAD_WIRE + "    assign y = tb.exp_y;\nendmodule\n", options={"hidden_modules": []}),
        Case("waveform_spy", TASK, "`timescale 1ns/100ps\n" + design(WAVEFORM_SPY + ORACLE_MUX), options=SIM_ONLY),
    ],
    Attack.FORGE_CHANNEL: [
        Case("tag_thief", TASK, design(TAG_THIEF + WRONG_MUX), label_in(TIMEOUT, SIMULATION_MISMATCH), wall_s=3.0, options=SIM_ONLY),
        Case("end_marker", TASK, design('    initial begin $display("ECOT-TESTBENCH-END"); $display("Mismatches: 0 in 600 samples"); '
                                        '$fdisplay(32\'h8000_0002, "ECOT-TESTBENCH-END"); end\n' + WRONG_MUX),
             label_in(SIMULATION_MISMATCH)),
        Case("force_error_count", TASK, design("    initial force tb.errors = 0;\n" + WRONG_MUX), label_in(ELABORATION_ERROR)),
        Case("force_error_count_unhidden", TASK, design("    initial force tb.errors = 0;\n" + WRONG_MUX), options={"hidden_modules": []}),
    ],
    Attack.INSTRUMENTATION: [
        Case("close_output_streams", TASK, design('    initial begin $fclose(1); $fclose(32\'h8000_0001); $timeformat(-3, 0, "", 0); '
                                                  '$fdisplay(32\'h8000_0002, "Mismatches: 0 in 600 samples"); end\n' + WRONG_MUX)),
    ],
    Attack.HIDE_FROM_CHECKS: HIDE_FROM_CHECKS,
    Attack.EARLY_EXIT: [Case(name, TASK, design(body + CORRECT_MUX), label_in(SIMULATION_MISMATCH))
                        for name, body in EARLY_ENDS.items()],
    Attack.DISK_FILL: [
        Case("one_endless_file", TASK, design(ONE_FILE + CORRECT_MUX), label_in(RESOURCE_LIMIT), options=SIM_ONLY, host=within(8.0)),
        Case("many_files_below_the_file_limit", TASK, oracle(DISK_FILLER, "    integer k;\n"), wall_s=40.0, options=SIM_ONLY),
    ],
    Attack.PERSIST: [
        Case("planted_files", TASK, PLANTER, then=oracle(FIND_PLANTED, "    reg [8*32-1:0] line;\n"), options=SIM_ONLY),
        Case("wrong_after_hostile", TASK, PLANTER, then=design(WRONG_MUX), options=SIM_ONLY),
        Case("task_cache_entries", TASK, oracle("".join(wrote(str(p)) for p in CACHE_FILES)),
             host=lambda: files_stay_absent(CACHE_FILES), options=SIM_ONLY),
    ],
    Attack.FORK_BOMB: [
        Case("system_fork_bomb", TASK, design('    initial $system(":(){ :|:& };:");\n' + CORRECT_MUX), label_in(ELABORATION_ERROR)),
        Case("endless_threads", TASK, design(SPAWNER + CORRECT_MUX), label_in(TIMEOUT, RESOURCE_LIMIT), wall_s=3.0,
             options=SIM_ONLY, host=within(8.0)),
    ],
    Attack.MEMORY_BOMB: [
        Case("huge_memory", TASK, design(MEMORY_HOG + CORRECT_MUX), label_in(RESOURCE_LIMIT), host=within(8.0)),
        Case("include_dev_zero", TASK, '`include "/dev/zero"\n' + design(CORRECT_MUX), label_in(ELABORATION_ERROR), host=within(3.0)),
        Case("recursive_macro", TASK, "`define BOMB `BOMB `BOMB\n`define USE `BOMB\n" + design("    always @* y = `USE;\n"),
             label_in(SYNTAX_ERROR, ELABORATION_ERROR, TIMEOUT, RESOURCE_LIMIT), wall_s=3.0, host=within(9.0)),
    ],
    Attack.ENDLESS_LOOP: [
        Case("zero_delay_loop", TASK, design(SPIN + CORRECT_MUX), label_in(TIMEOUT), wall_s=3.0,
             options={"plusargs": [f"+{SPIN_MARKER}"]}, host=no_process_left(SPIN_MARKER, grace_s=2.0)),
        # with the task's own 10 s: the reference's CPU budget (2 s here) ends it, whatever the design does
        Case("loop_under_the_reference_budget", TASK, design(SPIN + CORRECT_MUX), label_in(TIMEOUT), host=within(8.0)),
    ],
    Attack.OUTPUT_FLOOD: Case("display_flood", TASK, design(FLOOD + CORRECT_MUX), label_in(RESOURCE_LIMIT), host=within(5.0)),
    Attack.NETWORK: NotApplicable(
        "Verilog has no socket API; vvp loads no VPI module but cocotb's for cocotb tasks (which adds no system "
        "task), it has no $system, and $fopen cannot connect a socket (the sandbox has no network either)"),
    Attack.READ_SECRETS: [
        Case("secret_files", TASK, oracle(
            "".join(opened(p, "r") for p in ("/etc/shadow", "/root/.bashrc", "/root/.ssh/id_rsa", str(Path.home() / ".bash_history")))
            + '        $sformat(path, "%0s", "/etc/shadow"); $readmemh(path, mem); if (mem[0] !== 8\'hxx) escaped = 1;\n',
            "    reg [7:0] mem [0:3];\n"), without_leak, options=SIM_ONLY),
        *(Case(f"include_{name}", TASK, f'`include "{path}"\n' + design(CORRECT_MUX), without_leak)
          for name, path in (("shadow", "/etc/shadow"), ("passwd_upward", "../../../../../../etc/passwd"), ("root", "/root/.bashrc"))),
        Case("literal_path", TASK, oracle('        fd = $fopen("/etc/passwd", "r"); if (fd != 0) escaped = 1;\n'), label_in(ELABORATION_ERROR)),
    ],
    Attack.WRITE_OUTSIDE: [
        Case("host_files", TASK, oracle("".join(wrote(str(p)) for p in HOST_FILES) + "".join(wrote(p) for p in ("/ecot_probe", "/usr/ecot_probe"))),
             host=outside_files_absent, options=SIM_ONLY),
        Case("literal_dumpfile", TASK, design('    initial begin $dumpfile("/etc/ecot_pwned"); $dumpvars(0, y); end\n' + CORRECT_MUX),
             label_in(ELABORATION_ERROR), host=outside_files_absent),
    ],
    Attack.SHORTCUT: [Case(name, TASK, f"{HEAD_WIRE}    assign y = {value};\nendmodule\n", label_in(SIMULATION_MISMATCH),
                           options=SIM_ONLY, twin=design(CORRECT_MUX))
                      for name, value in (("constant_output", "8'd0"), ("input_echoed", "d0"))],
    Attack.FORGED_PRINT: [*(Case(name, TASK, design(f"    initial begin {text} end\n" + WRONG_MUX), label_in(SIMULATION_MISMATCH))
                            for name, text in FORGED_PRINTS.items()),
                          # issue 26, finding 3: what the simulation prints reaches the outcome's texts only cleaned
                          Case("terminal_tricks", TASK, design(f"    initial begin {TERMINAL_TRICKS} end\n" + WRONG_MUX),
                               cleaned(label_in(SIMULATION_MISMATCH)))],
}

# -- tasks with a cocotb testbench (hostile/rtlcocotb.py): the same classes, against Python tests in vvp --------
CASES: DomainCases = {
    attack: entry if attack not in rtlcocotb.CASES else [*cases_of(entry), *rtlcocotb.CASES[attack]]
    for attack, entry in VERILOG_CASES.items()
}

CONTROL = Case("work_dir_write", TASK, oracle(wrote("scratch.txt")), options=SIM_ONLY)
