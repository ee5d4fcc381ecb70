module tb;
    reg        clk = 1'b0;
    reg        rst_n, en;
    wire [4:0] q;
    reg  [4:0] m_q;
    integer errors, samples, cyc, seed;

    johnson5 dut (.clk(clk), .rst_n(rst_n), .en(en), .q(q));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 55;
        rst_n = 1'b0; en = 1'b0; m_q = 5'd0;
        for (cyc = 0; cyc < 300; cyc = cyc + 1) begin
            @(posedge clk);
            if (!rst_n) m_q = 5'd0;
            else if (en) m_q = {m_q[3:0], ~m_q[4]};
            @(negedge clk);
            rst_n = !(cyc < 1 || cyc == 137 || cyc == 138);
            en = (cyc < 40) || ($random(seed) % 4 != 0);
            #1;
            if (!rst_n) m_q = 5'd0;
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
