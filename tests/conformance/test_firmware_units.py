"""Host-side pieces of the firmware backend, without the toolchain: the QEMU trace parser and its
replay, the tagged report channel, fault decoding, expectations, build-log diagnostics, options."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecot.core.task import Task
from ecot.domains.firmware import regs
from ecot.domains.firmware.build import (
    compile_diagnostic,
    link_diagnostic,
    memory_usage,
)
from ecot.domains.firmware.expect import (
    Expectations,
    check_registers,
    compare_lines,
    compare_serial,
    parse_expectations,
)
from ecot.domains.firmware.options import FirmwareOptions
from ecot.domains.firmware.report import (
    classify_fault,
    gate_note,
    parse_report,
    presets,
    region,
    tag_text,
)
from ecot.domains.firmware.trace import parse_trace, replay, tail_summary

TRACE = """RCC: unimplemented device read  (size 4, offset 0x030)
GPIOA: unimplemented device write (size 4, offset 0x000, value 0xa8000400)
RCC: unimplemented device write (size 4, offset 0x030, value 0x00100001)
GPIOA: unimplemented device write (size 4, offset 0x000, value 0xa8000400)
GPIOA: unimplemented device write (size 4, offset 0x018, value 0x00000020)
GPIOA: unimplemented device write (size 2, offset 0x01a, value 0x0020)
GPIOA: unimplemented device write (size 1, offset 0x014, value 0x21)
Some Other Device: unimplemented device write (size 4, offset 0x000, value 0x1)
stm32f2xx_usart_write: Bad offset 0x40
"""


def test_trace_lines_become_addressed_accesses() -> None:
    trace = parse_trace(TRACE)
    assert [a.addr for a in trace.accesses[:3]] == [0x40023830, 0x40020000, 0x40023830]
    assert trace.accesses[1].write and trace.accesses[1].value == 0xA8000400
    assert not trace.accesses[0].write and trace.accesses[5].size == 2
    assert len(trace.accesses) == 7  # the unknown device is skipped
    assert trace.other == ["stm32f2xx_usart_write: Bad offset 0x40"]


def test_replay_flags_the_first_access_to_an_unclocked_peripheral_and_ignores_it() -> None:
    state = replay(parse_trace(TRACE))
    assert state.gate_violation == "write of 0xa8000400 to GPIOA_MODER (0x40020000) before RCC AHB1ENR bit 0 (GPIOAEN) was set"
    assert state.gated == 1
    assert state.value(0x40020000) == 0xA8000400  # the second, clocked write landed


def test_replay_tracks_pins_through_bsrr_halves_and_byte_writes() -> None:
    state = replay(parse_trace(TRACE))
    # BSRR set PA5; BSRR high half (size 2 at 0x1a) reset PA5; a byte write of ODR sets PA0 and PA5
    assert state.pins["PA5"] == [1, 0, 1]
    assert state.pins["PA0"] == [1]
    assert state.value(0x40020014) == 0x21


def test_presets_seed_the_replay() -> None:
    trace = parse_trace("RCC: unimplemented device write (size 4, offset 0x030, value 0x00100001)\n")
    state = replay(trace, {0x40020000: 0xA8000C00})
    assert state.value(0x40020000) == 0xA8000C00 and state.value(0x40023830) == 0x00100001
    assert state.value(0x40023800) == 0x00000083  # RCC_CR reset value


def test_tail_summary_groups_polling() -> None:
    lines = "RCC: unimplemented device read  (size 4, offset 0x000)\n" * 8
    assert tail_summary(parse_trace(lines)) == "8 × read of RCC_CR (0x40023800)"


TAG = tag_text(0x12345678, 0x9ABCDEF0)


def test_report_channel_only_trusts_tagged_lines() -> None:
    text = (
        "\x02 R crc=0xcbf43926\n"  # a candidate's attempt without the tag
        "\x020x000000000x00000000 R crc=0xcbf43926\n"  # a guessed tag
        f"noise before\x02{TAG} R crc=0x00000001\n"
        f"\x02{TAG} B USART2_BRR=0x0000016d\n"
        f"\x02{TAG} N PRESET addr=0x40020000 value=0xa8000c00 pc=0x00000000 write=0x00000001\n"
        f"\x02{TAG} N GATE addr=0x4000440c value=0x00002000 pc=0x08000100 write=0x00000001\n"
        f"\x02{TAG} E results=0x00000001\n"
    )
    report = parse_report(text, TAG)
    assert report.results == ["crc=0x00000001"]
    assert report.readbacks == ["USART2_BRR=0x0000016d"]
    assert report.end == 1 and report.stop is None
    assert presets(report) == {0x40020000: 0xA8000C00}
    assert gate_note(report) == ("write of 0x00002000 to USART2_CR1 (0x4000440c) before RCC APB1ENR bit 17 "
                                 "(USART2EN) was set (the chip ignores it)")


def test_fault_records_pair_with_their_location() -> None:
    text = (f"\x02{TAG} F exc=0x00000003 cfsr=0x00000082 hfsr=0x40000000 mmfar=0x20020004 bfar=0x00000000\n"
            f"\x02{TAG} P pc=0x08000142 lr=0x080013c1 xpsr=0x21000000 psp=0x20000f08 msp=0x2000fff0 stacked=0x1 a=0x0 b=0x0\n")
    report = parse_report(text, TAG)
    assert report.fault == {"exc": 3, "cfsr": 0x82, "hfsr": 0x40000000, "mmfar": 0x20020004, "bfar": 0}
    assert report.stop is not None and report.stop[0] == "F" and report.stop[1]["pc"] == 0x08000142


@pytest.mark.parametrize(
    ("cfsr", "label"),
    [(0x82, "Memory_Fault"), (0x92, "Memory_Fault"), (0x8200, "Memory_Fault"), (0x02000000, "Hard_Fault"),
     (0x00010000, "Hard_Fault"), (0x01, "Hard_Fault"), (0x0, "Hard_Fault")],
)
def test_fault_classes(cfsr: int, label: str) -> None:
    assert classify_fault({"cfsr": cfsr}) == label


def test_regions_speak_like_an_engineer() -> None:
    assert "NULL" in region(0x4, 0x20001000)
    assert "beyond the end of the 128 KiB SRAM" in region(0x20020004, 0x20001000)
    assert "read-only" in region(0x08000100, 0x20001000)
    assert "stack" in region(0x1FFFFFF0, 0x20001000)
    assert "no peripheral" in region(0x40007800, 0x20001000)
    assert "TIM5_CNT (0x40000c24), reserved for the harness" in region(0x40000C24, 0x20001000)
    assert "bit-band alias of bit 0 of TIM5_CR1 (0x40000c00), reserved" in region(0x42018000, 0x20001000)
    assert "bit-band alias of bit 5 of GPIOA_ODR (0x40020014)" in region(0x42400294, 0x20001000)


def test_register_names_and_handlers() -> None:
    assert regs.describe(0x40020000) == "GPIOA_MODER (0x40020000)"
    assert regs.register_name(0x40020100) == "GPIOA+0x100"
    assert regs.register_name(0x4002001A) == "GPIOA_BSRR+2"
    assert regs.address_of("RCC_AHB1ENR") == 0x40023830
    assert regs.handler_name(44) == "TIM2_IRQHandler" and regs.handler_name(15) == "SysTick_Handler"
    with pytest.raises(KeyError):
        regs.address_of("GPIOA_MODE")


def test_expectations_validate_and_compare() -> None:
    exp = parse_expectations(
        'results = ["a=1"]\n[[final]]\nreg = "GPIOA_MODER"\nmask = 0xC00\nvalue = 0x400\n'
        '[[order]]\nfirst = { reg = "FLASH_ACR", mask = 7, value = 5 }\nthen = { reg = "RCC_CFGR", mask = 3, value = 2 }\n',
        "t/expect.toml",
    )
    assert isinstance(exp, Expectations) and exp.final[0].holds(0xA8000400)
    with pytest.raises(ValueError, match="GPIOA_MODE"):
        parse_expectations('[[final]]\nreg = "GPIOA_MODE"\nvalue = 1\n', "t/expect.toml")
    with pytest.raises(ValueError, match="USART"):
        parse_expectations('[serial]\nUSART9 = "x"\n', "t/expect.toml")
    assert compare_lines("result", ["a=2"], ["a=1"]) == "result `a` is 2, expected 1"
    assert "1 of 2" in (compare_lines("result", ["a=1"], ["a=1", "b=2"]) or "")
    assert compare_serial({"USART2": "hi\r\n"}, {"USART2": b"hi\n"}) is not None


def test_order_and_final_checks_read_the_replay() -> None:
    exp = parse_expectations(
        '[[order]]\nfirst = { reg = "FLASH_ACR", mask = 7, value = 5 }\nthen = { reg = "RCC_CFGR", mask = 3, value = 2 }\n'
        'why = "wait states first"\n', "t")
    trace = parse_trace("RCC: unimplemented device write (size 4, offset 0x008, value 0x00000002)\n"
                        "Flash Int: unimplemented device write (size 4, offset 0x000, value 0x00000705)\n")
    finding = check_registers(exp, trace, replay(trace), None)
    assert finding is not None and finding.register
    assert finding.text == "RCC_CFGR & 0x00000003 = 0x00000002 was written before FLASH_ACR & 0x00000007 = 0x00000005: wait states first"


def test_build_log_diagnostics() -> None:
    log = ("In file included from solution.c:1:\n/tmp/ecot-fw-x/stm32f4.h:278:29: error: called object is not a function\n"
           "solution.c:3:21: note: in expansion of macro 'RCC_AHB1ENR_GPIOAEN'\n")
    assert compile_diagnostic(log, FirmwareOptions()) == (
        "solution.c:3:21: error: called object is not a function "
        "(in the expansion of macro RCC_AHB1ENR_GPIOAEN from stm32f4.h:278:29)")
    text, metrics = link_diagnostic("ld: region `RAM' overflowed by 12345 bytes\n")
    assert text.startswith("RAM overflowed by 12345 bytes") and metrics["overflow_bytes"] == 12345
    text, _ = link_diagnostic("/x/y/harness.c:6: undefined reference to `led_init'\n")
    assert text.startswith("harness.c:6: undefined reference to `led_init` (the harness calls it)")
    assert memory_usage("           FLASH:       13508 B         1 MB\n             RAM:        9984 B       128 KB\n") == {
        "flash_bytes": 13508, "ram_bytes": 9984}


def test_unknown_options_are_errors() -> None:
    task = Task("firmware/x", "firmware", "p", options={"stack_sise": 1})
    with pytest.raises(ValueError, match="stack_sise"):
        FirmwareOptions.of_task(task)
    assert FirmwareOptions.of_task(Task("firmware/y", "firmware", "p", options={"cflags": ["-DX"]})).cflags == ("-DX",)


def test_every_bundled_task_has_a_harness_and_valid_expectations() -> None:
    from ecot.tasks.suite import bundled_suite_path, load_suite

    tasks = load_suite(bundled_suite_path("firmware"))
    assert len(tasks) >= 30
    for task in tasks:
        settings = FirmwareOptions.of_task(task)
        assert settings.harness in task.files and "void harness_main(void)" in task.files[settings.harness], task.id
        exp = parse_expectations(task.files[settings.expect], task.id)
        checks = len(exp.results) + len(exp.readback) + len(exp.serial) + len(exp.final) + len(exp.pins)
        assert checks, f"{task.id} checks nothing"
        assert task.reference and "harness_main" not in task.reference, task.id


def test_a_report_cut_short_is_not_a_pass() -> None:
    """The end marker counts the results the runtime wrote; fewer reaching the judge fail the run."""
    from ecot.domains.firmware.clock import WRITE_EVENT, boot_sequence
    from ecot.domains.firmware.judge import OUTPUT_MISMATCH, judge
    from ecot.domains.firmware.run import Artifacts
    from ecot.sandbox import ExecResult

    expect = parse_expectations('results = ["crc=0x00000001"]\n', "expect.toml")
    run = ExecResult(returncode=0, stdout="", stderr="", timed_out=False, output_overflow=False, wall_s=0.1, isolated=True)
    whole = parse_report(f"\x02{TAG} R crc=0x00000001\n\x02{TAG} E results=0x00000001\n", TAG)
    cut = parse_report(f"\x02{TAG} R crc=0x00000001\n\x02{TAG} E results=0x00000002\n", TAG)
    boot = "".join(f"{WRITE_EVENT} cpu 0 mr 0x1 addr 0x{w.addr:x} value 0x{w.value:x} size 4 name 'stm32f2xx_timer'\n"
                   for w in boot_sequence(FirmwareOptions().budget_us))  # the harness clock's boot, as QEMU logs it
    verdicts = [judge(FirmwareOptions(), expect, run, Artifacts(), r, parse_trace(boot), lambda _: {}, 10.0) for r in (whole, cut)]
    assert verdicts[0].label == "Pass"
    assert verdicts[1].label == OUTPUT_MISMATCH and "cut short" in verdicts[1].diagnostic


def test_the_judge_reads_what_qemu_wrote_without_following_links(tmp_path: Path) -> None:
    from ecot.domains.firmware.run import RunFolder, collect, prepare

    folder = RunFolder.new()
    prepare(tmp_path, folder)
    secret = tmp_path / "outside.txt"
    secret.write_text("\x02tag R leaked=1\n")
    (tmp_path / folder.path("semihost")).symlink_to(secret)
    (tmp_path / folder.path("usart2")).write_bytes(b"hello")
    found = collect(tmp_path, folder)
    assert found.semihost == "" and found.serial == {"USART2": b"hello"}
