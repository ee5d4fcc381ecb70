"""cocotb tests of `delay_line`, run once per parameter set of the task: the width of the ports and the
depth of the delay must follow the parameters."""

import random
from collections import deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge


@cocotb.test()
async def ports_follow_width(dut):
    width = int(dut.WIDTH.value)
    assert len(dut.din) == width and len(dut.dout) == width, f"ports are {len(dut.din)}/{len(dut.dout)} bits, WIDTH is {width}"


@cocotb.test()
async def delays_by_depth(dut):
    width, depth = int(dut.WIDTH.value), int(dut.DEPTH.value)
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    sent = deque()
    for cycle in range(100):
        value = random.getrandbits(width)
        dut.din.value = value
        sent.append(value)
        await FallingEdge(dut.clk)
        if len(sent) > depth:
            sent.popleft()
        if len(sent) == depth:
            assert int(dut.dout.value) == sent[0], f"cycle {cycle}: dout={int(dut.dout.value)}, expected {sent[0]} (DEPTH={depth})"
