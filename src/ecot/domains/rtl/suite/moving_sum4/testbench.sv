module tb;
    reg        clk = 1'b0;
    reg        rst, valid;
    reg  [7:0] x;
    wire [9:0] sum;
    reg  [7:0] win [0:3];
    reg  [9:0] m_sum;
    integer errors, samples, cyc, seed, k;

    moving_sum4 dut (.clk(clk), .rst(rst), .valid(valid), .x(x), .sum(sum));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 4;
        rst = 1'b1; valid = 0; x = 0;
        for (k = 0; k < 4; k = k + 1) win[k] = 8'bx;
        for (cyc = 0; cyc < 800; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) for (k = 0; k < 4; k = k + 1) win[k] = 8'd0;
            else if (valid) begin
                for (k = 3; k > 0; k = k - 1) win[k] = win[k - 1];
                win[0] = x;
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 600);
            valid = ($random(seed) % 4 != 0);
            x = (cyc % 100 < 20) ? 8'hFF : $random(seed);   // runs of 255 reach the maximum sum
            #1;
            m_sum = win[0] + win[1] + win[2] + win[3];
            samples = samples + 1;
            if (sum !== m_sum) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=sum expected=%h got=%h", $time, m_sum, sum);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
