module tb;
    reg        clk = 1'b0;
    reg        rst, en;
    reg  [7:0] din;
    wire [7:0] q1, q2, q3, q4;
    reg  [7:0] m1, m2, m3, m4;
    integer errors, samples, cyc, seed;

    delay_line4 dut (.clk(clk), .rst(rst), .en(en), .din(din), .q1(q1), .q2(q2), .q3(q3), .q4(q4));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 44;
        rst = 1'b1; en = 1'b0; din = 8'h00;
        {m1, m2, m3, m4} = 32'bx;
        for (cyc = 0; cyc < 400; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) {m1, m2, m3, m4} = 32'h0;
            else if (en) {m4, m3, m2, m1} = {m3, m2, m1, din};
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 250);
            en = ($random(seed) % 4 != 0);
            din = $random(seed);
            #1;
            samples = samples + 1;
            if ({q1, q2, q3, q4} !== {m1, m2, m3, m4}) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal={q1,q2,q3,q4} expected=%h got=%h", $time, {m1, m2, m3, m4}, {q1, q2, q3, q4});
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
