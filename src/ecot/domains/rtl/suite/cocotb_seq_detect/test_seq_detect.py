"""cocotb tests of `seq_detect`: a fixed stream with its expected outputs (vectors.txt), random streams
against a model, and reset in the middle of a sequence."""

import random
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

PATTERN = 0b1011


class Model:
    def __init__(self):
        self.history, self.seen = 0, 0

    def step(self, bit):
        self.history = ((self.history << 1) | bit) & 0xF
        self.seen += 1
        return int(self.seen >= 4 and self.history == PATTERN)


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.din.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    await FallingEdge(dut.clk)


async def drive(dut, bit):
    dut.din.value = bit
    await FallingEdge(dut.clk)
    return int(dut.found.value)


@cocotb.test()
async def fixed_vectors(dut):
    await start(dut)
    vectors = Path(__file__).with_name("vectors.txt").read_text().split()
    for index, pair in enumerate(vectors):
        bit, expected = (int(c) for c in pair.split(","))
        got = await drive(dut, bit)
        assert got == expected, f"vector {index}: found={got}, expected {expected}"


@cocotb.test()
async def random_streams(dut):
    await start(dut)
    model = Model()
    for cycle in range(400):
        bit = random.randint(0, 1)
        expected = model.step(bit)
        got = await drive(dut, bit)
        assert got == expected, f"cycle {cycle}: found={got}, expected {expected}"


@cocotb.test()
async def reset_forgets_partial_sequence(dut):
    await start(dut)
    for bit in (1, 0, 1):
        await drive(dut, bit)
    dut.rst.value = 1
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    assert int(dut.found.value) == 0
    got = await drive(dut, 1)
    assert got == 0, "1011 completed across a reset"
