module tb;
    reg        clk = 1'b0;
    reg        rst_n, sin;
    reg  [1:0] mode;
    reg  [7:0] d;
    wire [7:0] q;
    reg  [7:0] m_q;
    integer errors, samples, cyc, seed;

    ushift8 dut (.clk(clk), .rst_n(rst_n), .mode(mode), .sin(sin), .d(d), .q(q));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 9;
        rst_n = 1'b0; mode = 2'b00; sin = 1'b0; d = 8'h00; m_q = 8'h00;
        for (cyc = 0; cyc < 500; cyc = cyc + 1) begin
            @(posedge clk);
            if (!rst_n) m_q = 8'h00;
            else case (mode)
                2'b01: m_q = {m_q[6:0], sin};
                2'b10: m_q = {sin, m_q[7:1]};
                2'b11: m_q = d;
                default: ;
            endcase
            @(negedge clk);
            rst_n = !(cyc < 1 || cyc == 321);
            mode = $random(seed);
            sin = $random(seed);
            d = $random(seed);
            #1;
            if (!rst_n) m_q = 8'h00;
            samples = samples + 1;
            if (q !== m_q) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=q expected=%h got=%h mode=%b", $time, m_q, q, mode);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
