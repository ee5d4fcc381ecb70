module tb;
    reg        clk = 1'b0;
    reg        rst_n, load, en, up;
    reg  [7:0] d;
    wire [7:0] q;
    reg  [7:0] m_q;
    integer errors, samples, cyc, seed;

    updown_counter8 dut (.clk(clk), .rst_n(rst_n), .load(load), .d(d), .en(en), .up(up), .q(q));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 321;
        rst_n = 1'b0; load = 1'b0; en = 1'b0; up = 1'b1; d = 8'h00; m_q = 8'd0;
        for (cyc = 0; cyc < 500; cyc = cyc + 1) begin
            @(posedge clk);
            if (!rst_n) m_q = 8'd0;
            else if (load) m_q = d;
            else if (en) m_q = up ? m_q + 8'd1 : m_q - 8'd1;
            @(negedge clk);
            // the reset is dropped between edges so an asynchronous reset is visible at once
            rst_n = !(cyc < 1 || cyc % 83 == 40);
            load = ($random(seed) % 16 == 0);
            d = (cyc % 3 == 0) ? 8'hFE : $random(seed);
            en = ($random(seed) % 5 != 0);
            up = (cyc % 120 < 60) ? ($random(seed) % 8 != 0) : ($random(seed) % 8 == 0);
            #1;
            if (!rst_n) m_q = 8'd0;
            samples = samples + 1;
            if (q !== m_q) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=q expected=%h got=%h rst_n=%b", $time, m_q, q, rst_n);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
