module tb;
    reg        clk = 1'b0;
    reg        rst_n;
    reg  [3:0] req;
    wire [3:0] grant;
    reg  [3:0] m_grant;
    integer    m_last, k, idx, done;
    integer errors, samples, cyc, seed;

    rr_arbiter4 dut (.clk(clk), .rst_n(rst_n), .req(req), .grant(grant));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 44;
        rst_n = 1'b0; req = 4'b0000; m_grant = 4'b0000; m_last = 3;
        for (cyc = 0; cyc < 600; cyc = cyc + 1) begin
            @(posedge clk);
            if (!rst_n) begin m_grant = 0; m_last = 3; end
            else begin
                done = 0; m_grant = 0;
                for (k = 1; k <= 4; k = k + 1) begin
                    idx = (m_last + k) % 4;
                    if (!done && req[idx]) begin done = 1; m_grant = 4'b0001 << idx; m_last = idx; end
                end
            end
            @(negedge clk);
            rst_n = !(cyc < 1 || cyc == 250);
            case (cyc % 150 / 50)
                0: req = 4'b1111;                       // everybody asks: pure rotation
                1: req = $random(seed);
                default: req = $random(seed) & $random(seed);
            endcase
            #1;
            if (!rst_n) begin m_grant = 0; m_last = 3; end
            samples = samples + 1;
            if (grant !== m_grant) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=grant expected=%h got=%h req=%b", $time, m_grant, grant, req);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
