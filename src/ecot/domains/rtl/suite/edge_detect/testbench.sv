module tb;
    reg  clk = 1'b0;
    reg  rst, sig;
    wire rise, fall;
    reg  m_prev, m_rise, m_fall;
    integer errors, samples, cyc, seed;

    edge_detect dut (.clk(clk), .rst(rst), .sig(sig), .rise(rise), .fall(fall));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 2;
        rst = 1'b1; sig = 1'b1; {m_prev, m_rise, m_fall} = 3'bx;
        for (cyc = 0; cyc < 400; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) {m_prev, m_rise, m_fall} = 3'b000;
            else begin
                m_rise = sig & ~m_prev;
                m_fall = ~sig & m_prev;
                m_prev = sig;
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 200);
            // runs of random length so long highs, long lows and single-cycle glitches all occur
            if (cyc % 7 == 0 || $random(seed) % 3 == 0) sig = ~sig;
            #1;
            samples = samples + 1;
            if (rise !== m_rise) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=rise expected=%h got=%h", $time, m_rise, rise);
            end
            if (fall !== m_fall) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=fall expected=%h got=%h", $time, m_fall, fall);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
