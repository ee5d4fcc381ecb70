module tb;
    reg        clk = 1'b0;
    reg        we;
    reg  [4:0] waddr, raddr;
    reg  [7:0] wdata;
    wire [7:0] rdata;
    reg  [7:0] m_mem [0:31];
    reg  [7:0] m_rdata;
    integer errors, samples, cyc, seed;

    dpram32x8 dut (.clk(clk), .we(we), .waddr(waddr), .wdata(wdata), .raddr(raddr), .rdata(rdata));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 32;
        we = 1'b1; waddr = 5'd0; raddr = 5'd0; wdata = $random(seed); m_rdata = 8'bx;
        for (cyc = 0; cyc < 800; cyc = cyc + 1) begin
            @(posedge clk);
            m_rdata = m_mem[raddr];       // read-first: sample before the write
            if (we) m_mem[waddr] = wdata;
            @(negedge clk);
            if (cyc < 31) begin
                we = 1'b1; waddr = cyc + 1; raddr = cyc;
            end else begin
                we = ($random(seed) % 2 == 0);
                waddr = $random(seed);
                raddr = (cyc % 4 == 0) ? waddr : $random(seed);  // frequent collisions
            end
            wdata = $random(seed);
            #1;
            if (cyc >= 32) begin
                samples = samples + 1;
                if (rdata !== m_rdata) begin
                    errors = errors + 1;
                    if (errors <= 5)
                        $display("MISMATCH time=%0t signal=rdata expected=%h got=%h", $time, m_rdata, rdata);
                end
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
