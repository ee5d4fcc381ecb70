module tb;
    reg        clk = 1'b0;
    reg        we;
    reg  [3:0] addr;
    reg  [7:0] din;
    wire [7:0] dout;
    reg  [7:0] m_mem [0:15];
    reg  [7:0] m_dout;
    integer errors, samples, cyc, seed;

    spram16x8 dut (.clk(clk), .we(we), .addr(addr), .din(din), .dout(dout));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 16;
        // first 16 cycles write every word once (descending order), so every later read is defined
        we = 1'b1; addr = 4'd15; din = $random(seed); m_dout = 8'bx;
        for (cyc = 0; cyc < 700; cyc = cyc + 1) begin
            @(posedge clk);
            if (we) begin m_mem[addr] = din; m_dout = din; end
            else m_dout = m_mem[addr];
            @(negedge clk);
            if (cyc < 15) begin
                we = 1'b1;
                addr = 14 - cyc;
            end else begin
                we = ($random(seed) % 3 == 0);
                addr = $random(seed);
            end
            din = $random(seed);
            #1;
            samples = samples + 1;
            if (dout !== m_dout) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=dout expected=%h got=%h", $time, m_dout, dout);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
