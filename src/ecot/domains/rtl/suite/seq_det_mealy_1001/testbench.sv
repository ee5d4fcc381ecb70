module tb;
    reg        clk = 1'b0;
    reg        rst_n, din;
    wire       det;
    reg  [2:0] hist;
    reg        m_det;
    integer errors, samples, cyc, seed;

    seq_det_mealy_1001 dut (.clk(clk), .rst_n(rst_n), .din(din), .det(det));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 1001;
        rst_n = 1'b0; din = 1'b1; hist = 3'b000;
        for (cyc = 0; cyc < 600; cyc = cyc + 1) begin
            @(posedge clk);
            if (!rst_n) hist = 3'b000;
            else hist = {hist[1:0], din};
            @(negedge clk);
            rst_n = !(cyc < 1 || cyc == 333);
            case (cyc % 30)
                5, 8, 11: din = 1'b1;
                6, 7, 9, 10: din = 1'b0;
                default: din = ($random(seed) % 2 == 0);
            endcase
            #1;
            if (!rst_n) hist = 3'b000;
            m_det = rst_n && ({hist, din} == 4'b1001);
            samples = samples + 1;
            if (det !== m_det) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=det expected=%h got=%h history=%b din=%b", $time, m_det, det, hist, din);
            end
            // the Mealy output must also track din changes between edges
            din = ~din;
            #1;
            m_det = rst_n && ({hist, din} == 4'b1001);
            samples = samples + 1;
            if (det !== m_det) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=det expected=%h got=%h history=%b din=%b", $time, m_det, det, hist, din);
            end
            din = ~din;
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
