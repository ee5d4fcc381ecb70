module regfile8x16 (
    input  wire        clk,
    input  wire        rst,
    input  wire        we,
    input  wire [2:0]  waddr,
    input  wire [15:0] wdata,
    input  wire [2:0]  raddr1,
    output wire [15:0] rdata1,
    input  wire [2:0]  raddr2,
    output wire [15:0] rdata2
);
    reg [15:0] regs [0:7];
    integer k;

    always @(posedge clk) begin
        if (rst) begin
            for (k = 0; k < 8; k = k + 1)
                regs[k] <= 16'h0000;
        end else if (we && waddr != 3'd0) begin
            regs[waddr] <= wdata;
        end
    end

    assign rdata1 = (raddr1 == 3'd0) ? 16'h0000 : regs[raddr1];
    assign rdata2 = (raddr2 == 3'd0) ? 16'h0000 : regs[raddr2];
endmodule
