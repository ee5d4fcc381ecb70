module tb;
    reg         clk = 1'b0;
    reg         rst_n, en;
    reg  [7:0]  din;
    wire [15:0] sum;
    wire        ovf;
    reg  [15:0] m_sum;
    reg         m_ovf;
    integer errors, samples, cyc, seed;

    accum16 dut (.clk(clk), .rst_n(rst_n), .en(en), .din(din), .sum(sum), .ovf(ovf));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 1616;
        rst_n = 1'b0; en = 0; din = 0; m_sum = 0; m_ovf = 0;
        for (cyc = 0; cyc < 1200; cyc = cyc + 1) begin
            @(posedge clk);
            if (!rst_n) begin m_sum = 0; m_ovf = 0; end
            else if (en) begin
                if (m_sum + din > 65535) m_ovf = 1'b1;
                m_sum = m_sum + din;
            end
            @(negedge clk);
            rst_n = !(cyc < 1 || cyc == 700);
            en = ($random(seed) % 4 != 0);
            din = (cyc < 400) ? ($random(seed) | 8'hC0) : $random(seed);  // large values: overflow early
            #1;
            if (!rst_n) begin m_sum = 0; m_ovf = 0; end
            samples = samples + 1;
            if (sum !== m_sum) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=sum expected=%h got=%h", $time, m_sum, sum);
            end
            if (ovf !== m_ovf) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=ovf expected=%h got=%h", $time, m_ovf, ovf);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
