module tb;
    reg        clk = 1'b0;
    reg        rst, en;
    wire [3:0] q;
    wire       carry;
    reg  [3:0] m_q;
    reg        exp_carry;
    integer errors, samples, cyc, seed;

    bcd_counter dut (.clk(clk), .rst(rst), .en(en), .q(q), .carry(carry));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 10;
        rst = 1'b1; en = 1'b0; m_q = 4'bx;
        for (cyc = 0; cyc < 400; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) m_q = 4'd0;
            else if (en) m_q = (m_q == 4'd9) ? 4'd0 : m_q + 4'd1;
            @(negedge clk);
            rst = (cyc < 2) || (cyc % 101 == 60);
            en = (cyc % 50 < 35) ? 1'b1 : ($random(seed) % 4 != 0);
            #1;
            exp_carry = en && (m_q == 4'd9);
            samples = samples + 1;
            if (q !== m_q) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=q expected=%h got=%h", $time, m_q, q);
            end
            if (carry !== exp_carry) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=carry expected=%h got=%h en=%b", $time, exp_carry, carry, en);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
