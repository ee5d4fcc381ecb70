module tb;
    reg        clk = 1'b0;
    reg        rst, load, en;
    reg  [7:0] seed_in;
    wire [7:0] q;
    reg  [7:0] m_q;
    integer errors, samples, cyc, seed;

    lfsr8 dut (.clk(clk), .rst(rst), .load(load), .seed(seed_in), .en(en), .q(q));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 808;
        rst = 1'b1; load = 1'b0; en = 1'b0; seed_in = 8'h00; m_q = 8'bx;
        for (cyc = 0; cyc < 700; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) m_q = 8'h01;
            else if (load) m_q = seed_in;
            else if (en) m_q = {m_q[6:0], m_q[7] ^ m_q[5] ^ m_q[4] ^ m_q[3]};
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 400);
            load = (cyc % 97 == 10) || (cyc == 300 && 1'b1);
            seed_in = (cyc == 300) ? 8'h00 : $random(seed);
            en = (cyc % 64 < 56) || rst;
            #1;
            samples = samples + 1;
            if (q !== m_q) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=q expected=%h got=%h", $time, m_q, q);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
