module tb;
    reg        clk = 1'b0;
    reg        rst, din;
    wire       det;
    reg  [3:0] hist;
    reg        m_det;
    integer errors, samples, cyc, seed;

    seq_det_1011 dut (.clk(clk), .rst(rst), .din(din), .det(det));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 1011;
        rst = 1'b1; din = 1'b0; hist = 4'b0000; m_det = 1'bx;
        for (cyc = 0; cyc < 600; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) hist = 4'b0000;
            else hist = {hist[2:0], din};
            m_det = (hist == 4'b1011);
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 300);
            // bias towards 1011-rich streams, with a planted overlapping pattern now and then
            case (cyc % 40)
                10, 12, 13, 15, 16: din = 1'b1;
                11, 14: din = 1'b0;
                default: din = ($random(seed) % 3 != 0);
            endcase
            #1;
            samples = samples + 1;
            if (det !== m_det) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=det expected=%h got=%h history=%b", $time, m_det, det, hist);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
