module tb;
    reg        clk = 1'b0;
    reg        rst;
    reg  [7:0] div;
    wire [7:0] cnt;
    wire       tick;
    reg  [7:0] m_cnt;
    integer    lim;
    integer errors, samples, cyc, seed;

    clk_en_div dut (.clk(clk), .rst(rst), .div(div), .cnt(cnt), .tick(tick));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 100;
        rst = 1'b1; div = 8'd3; m_cnt = 8'bx;
        for (cyc = 0; cyc < 1200; cyc = cyc + 1) begin
            @(posedge clk);
            lim = (div == 0) ? 0 : div - 1;
            if (rst || m_cnt >= lim) m_cnt = 0;
            else m_cnt = m_cnt + 1;
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 900);
            if (cyc % 60 == 0) begin
                case ((cyc / 60) % 6)
                    0: div = 8'd0;
                    1: div = 8'd1;
                    2: div = 8'd5;
                    3: div = 8'd2;
                    4: div = 8'd40;
                    default: div = 8'd7;
                endcase
            end
            if (cyc % 60 == 50 && div > 3) div = 8'd3;   // shrink the period mid-count
            #1;
            lim = (div == 0) ? 0 : div - 1;
            samples = samples + 1;
            if (cnt !== m_cnt) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=cnt expected=%h got=%h div=%0d", $time, m_cnt, cnt, div);
            end
            if (tick !== (m_cnt >= lim)) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=tick expected=%h got=%h div=%0d", $time, m_cnt >= lim, tick, div);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
