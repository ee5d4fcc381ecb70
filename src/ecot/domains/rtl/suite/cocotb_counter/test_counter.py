"""cocotb tests of `counter`: reset, counting with enable, holding, and wrapping."""

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.en.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    await FallingEdge(dut.clk)


@cocotb.test()
async def resets_to_zero(dut):
    await start(dut)
    assert int(dut.count.value) == 0, f"count after reset is {int(dut.count.value)}, expected 0"


@cocotb.test()
async def counts_only_when_enabled(dut):
    await start(dut)
    from counter_model import next_count  # imported here, after the design has run: see hostile/rtlcocotb.py

    width = len(dut.count)
    expected = 0
    for cycle in range(200):
        enable = random.random() < 0.7
        dut.en.value = int(enable)
        await FallingEdge(dut.clk)
        expected = next_count(expected, enable, width)
        assert int(dut.count.value) == expected, f"cycle {cycle}: count {int(dut.count.value)}, expected {expected}"


@cocotb.test()
async def wraps_around(dut):
    await start(dut)
    width = len(dut.count)
    dut.en.value = 1
    for _ in range((1 << width) - 1):
        await FallingEdge(dut.clk)
    assert int(dut.count.value) == (1 << width) - 1
    await FallingEdge(dut.clk)
    assert int(dut.count.value) == 0, f"count after all ones is {int(dut.count.value)}, expected 0"
