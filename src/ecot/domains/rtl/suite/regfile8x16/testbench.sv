module tb;
    reg         clk = 1'b0;
    reg         rst, we;
    reg  [2:0]  waddr, raddr1, raddr2;
    reg  [15:0] wdata;
    wire [15:0] rdata1, rdata2;
    reg  [15:0] m_regs [0:7];
    integer errors, samples, cyc, seed, k;

    regfile8x16 dut (.clk(clk), .rst(rst), .we(we), .waddr(waddr), .wdata(wdata),
                     .raddr1(raddr1), .rdata1(rdata1), .raddr2(raddr2), .rdata2(rdata2));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 816;
        rst = 1'b1; we = 1'b0; waddr = 0; wdata = 0; raddr1 = 0; raddr2 = 0;
        for (k = 0; k < 8; k = k + 1) m_regs[k] = 16'bx;
        for (cyc = 0; cyc < 800; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) for (k = 0; k < 8; k = k + 1) m_regs[k] = 16'h0000;
            else if (we && waddr != 0) m_regs[waddr] = wdata;
            @(negedge clk);
            rst = (cyc < 1) || (cyc == 500);
            we = ($random(seed) % 3 != 0);
            waddr = $random(seed);
            wdata = $random(seed);
            raddr1 = $random(seed);
            raddr2 = (cyc % 5 == 0) ? waddr : $random(seed);  // read what is being written
            #1;
            samples = samples + 1;
            if (rdata1 !== (raddr1 == 0 ? 16'h0 : m_regs[raddr1])) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=rdata1 expected=%h got=%h raddr1=%0d", $time, (raddr1 == 0 ? 16'h0 : m_regs[raddr1]), rdata1, raddr1);
            end
            if (rdata2 !== (raddr2 == 0 ? 16'h0 : m_regs[raddr2])) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=rdata2 expected=%h got=%h raddr2=%0d", $time, (raddr2 == 0 ? 16'h0 : m_regs[raddr2]), rdata2, raddr2);
            end
            // the read ports are combinational: change the addresses between edges and look again
            raddr1 = raddr1 + 3;
            raddr2 = raddr2 + 5;
            #1;
            if (rdata1 !== (raddr1 == 0 ? 16'h0 : m_regs[raddr1])) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=rdata1 expected=%h got=%h raddr1=%0d", $time, (raddr1 == 0 ? 16'h0 : m_regs[raddr1]), rdata1, raddr1);
            end
            if (rdata2 !== (raddr2 == 0 ? 16'h0 : m_regs[raddr2])) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=rdata2 expected=%h got=%h raddr2=%0d", $time, (raddr2 == 0 ? 16'h0 : m_regs[raddr2]), rdata2, raddr2);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
