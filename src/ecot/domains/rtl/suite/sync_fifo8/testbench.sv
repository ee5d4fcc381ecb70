module tb;
    reg        clk = 1'b0;
    reg        rst, wr_en, rd_en;
    reg  [7:0] din;
    wire [7:0] dout;
    wire       full, empty;
    wire [3:0] count;
    reg  [7:0] q [0:7];   // model storage as a circular buffer
    integer    head, m_count, bias;
    reg  [7:0] m_dout;
    reg        can_wr, can_rd;
    integer errors, samples, cyc, seed;

    sync_fifo8 dut (.clk(clk), .rst(rst), .wr_en(wr_en), .din(din), .rd_en(rd_en),
                    .dout(dout), .full(full), .empty(empty), .count(count));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 88;
        rst = 1'b1; wr_en = 0; rd_en = 0; din = 0; head = 0; m_count = 0; m_dout = 8'bx;
        for (cyc = 0; cyc < 1500; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) begin head = 0; m_count = 0; m_dout = 8'h00; end
            else begin
                can_wr = wr_en && (m_count < 8);
                can_rd = rd_en && (m_count > 0);
                if (can_rd) begin m_dout = q[head]; head = (head + 1) % 8; m_count = m_count - 1; end
                if (can_wr) begin q[(head + m_count) % 8] = din; m_count = m_count + 1; end
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 1100);
            // phases that fill, drain and mix, so full and empty are both reached repeatedly
            bias = (cyc / 60) % 3;
            wr_en = ($random(seed) & 3) < (bias == 0 ? 3 : bias == 1 ? 1 : 2);
            rd_en = ($random(seed) & 3) < (bias == 0 ? 1 : bias == 1 ? 3 : 2);
            din = $random(seed);
            #1;
            samples = samples + 1;
            if (dout !== m_dout) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=dout expected=%h got=%h", $time, m_dout, dout);
            end
            if (count !== m_count[3:0]) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=count expected=%h got=%h", $time, m_count[3:0], count);
            end
            if ({full, empty} !== {m_count == 8, m_count == 0}) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal={full,empty} expected=%h got=%h", $time, {m_count == 8, m_count == 0}, {full, empty});
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
