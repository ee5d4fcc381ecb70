module tb;
    reg  clk = 1'b0;
    reg  rst, noisy;
    wire clean;
    reg  m_clean;
    integer m_cnt, run_left, late_reset;
    integer errors, samples, cyc, seed;

    debouncer dut (.clk(clk), .rst(rst), .noisy(noisy), .clean(clean));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 4;
        rst = 1'b1; noisy = 1'b1; m_clean = 1'bx; m_cnt = 0; run_left = 0; late_reset = 0;
        for (cyc = 0; cyc < 900; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) begin m_clean = 0; m_cnt = 0; end
            else if (noisy == m_clean) m_cnt = 0;
            else if (m_cnt == 3) begin m_clean = noisy; m_cnt = 0; end
            else m_cnt = m_cnt + 1;
            @(negedge clk);
            // the second reset strikes while a count is in progress: it must clear the counter too
            rst = (cyc < 2) || (cyc >= 600 && !late_reset && m_cnt == 2);
            if (cyc >= 2 && rst) late_reset = 1;
            if (rst) begin
                // leave reset with noisy = 1 for exactly 3 more edges: clean must stay 0
                noisy = 1'b1;
                run_left = 3;
            end else begin
                // runs of 1..6 cycles: runs of 3 and 4 probe the exact threshold
                if (run_left == 0) begin
                    noisy = ~noisy;
                    run_left = 1 + (($random(seed) & 32'h7fffffff) % 6);
                end
                run_left = run_left - 1;
            end
            #1;
            samples = samples + 1;
            if (clean !== m_clean) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=clean expected=%h got=%h noisy=%b", $time, m_clean, clean, noisy);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
